/**
 * Scope: judges the paths of a parsed patch against confinement and the
 * allowed / forbidden / write globs, reporting every violation with a stable
 * code. Pure: it never reads the worktree (symlinks already on disk are the
 * adapters' job) and never applies anything.
 *
 * @module
 */
export * from "./codes.ts";
export * from "./check_scope.ts";
export * from "./check_patch_scope.ts";
