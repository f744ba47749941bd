/**
 * Verification: validation of a backend round, the same for every backend.
 * It re-derives everything from bytes vouch extracted itself: the patch is
 * parsed strictly and scope-checked (allowed / forbidden / protected paths,
 * confinement), changed files are classified for policy (CI workflows,
 * dependency manifests, lockfiles, secrets-looking files, executables,
 * symlinks), writes outside the worktree are detected, and the contract is
 * re-run in a CLEAN tree of the base with the patch applied by
 * `git apply --index`, in the sandbox, with a receipt per command.
 *
 * It must never trust anything a worker says (transcripts are data), and never
 * report a check that could not run as passed.
 *
 * @example
 * ```ts
 * import { classifyPath } from "./mod.ts";
 * if (!classifyPath("package-lock.json").includes("lockfile")) throw new Error();
 * ```
 *
 * @module
 */
export * from "./classify.ts";
export * from "./inspect_patch.ts";
export * from "./outside_watch.ts";
export * from "./clean_verifier.ts";
