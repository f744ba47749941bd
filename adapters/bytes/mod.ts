/**
 * Byte arrays: joining the chunks a stream delivered.
 *
 * @module
 */
export { concatBytes } from "./concat.ts";
