/**
 * git for vouch: every invocation hardened (`core.fsmonitor=false`,
 * `core.hooksPath=/dev/null`, no system or global config) and run through the
 * process runner. Must never run git with a repository's own hooks, fsmonitor
 * or credential helpers.
 *
 * @module
 */
export * from "./hardened_git.ts";
export * from "./git_checked.ts";
export * from "./locate_repo.ts";
export * from "./checkout_snapshot.ts";
export * from "./apply_patch.ts";
