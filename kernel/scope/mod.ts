/**
 * Scope: the one judgement of a patch before anything runs (`judgePatch`,
 * used by `vouch scope`, `verify`, `run` and `evaluate`): strict parse, the
 * paths against confinement and the allowed / forbidden / write / protected
 * globs, sensitive classes and the policy's denied ones, an empty patch;
 * every violation with a stable code. Pure: it never reads the worktree
 * (symlinks already on disk are the adapters' job) and never applies anything.
 *
 * @module
 */
export * from "./codes.ts";
export * from "./check_scope.ts";
export * from "./classify.ts";
export * from "./judge_patch.ts";
export * from "./judge_applied.ts";
export * from "./judge_tool_access.ts";
