/**
 * Structured test results: JUnit XML reports, jest's `--json` report and vouch's own mocha hook read
 * into per-test outcomes (ids as the text parsers name them), and the
 * environment or flags vouch may add to a check so that its runner writes such
 * a report without changing what runs.
 *
 * @module
 */
export * from "./junit.ts";
export * from "./jest.ts";
export * from "./mocha.ts";
export * from "./plan.ts";
export * from "./deno_task.ts";
export * from "./read.ts";
export * from "./configs.ts";
export { MOCHA_HOOK_SOURCE, MOCHA_REPORT_ENV } from "./_mocha_hook.ts";
