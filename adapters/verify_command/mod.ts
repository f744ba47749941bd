/**
 * Verify-command detection: how to run a repository's tests (`deno.json`
 * tasks.test, `package.json` scripts.test, pytest configuration,
 * `Cargo.toml`, `go.mod`, a Makefile `test` target; an explicit command always
 * wins), and whether a `--verify` command can start at all. Reads a few small
 * files and stats `PATH`; must never run anything.
 *
 * @module
 */
export * from "./detect.ts";
export * from "./preflight.ts";
