/**
 * The command-line interface: argument parsing, progress and rendering over the
 * library. Must never hold logic an embedder needs; that lives in `kernel/` or
 * `adapters/`.
 *
 * @module
 */
export * from "./command.ts";
export { runCli } from "./main.ts";
