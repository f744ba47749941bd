/**
 * Dependencies in the clean verification tree: which installed dependency
 * directories of the user's checkout to give it as private, writable copies
 * (when the patch touches no manifest or lockfile), setup commands, the clear
 * refusal when a patch changes manifests without setup, and the hint when a
 * sandboxed check misses a path outside the tree (`--sandbox-ro`). Never
 * writes into the user's dependency directories and never installs anything.
 *
 * @module
 */
export * from "./dependency_plan.ts";
export * from "./copy_dir.ts";
export * from "./provide.ts";
export * from "./provision.ts";
export * from "./setup.ts";
export * from "./shared.ts";
export * from "./outside_paths.ts";
export * from "./python_env.ts";
