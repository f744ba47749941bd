/**
 * Dependencies in the clean verification tree: which installed dependency
 * directories of the user's checkout to link in (when the patch touches no
 * manifest or lockfile), setup commands, and the clear refusal when a patch
 * changes manifests without setup. Must never write into the user's
 * dependency directories and never install anything itself.
 *
 * @module
 */
export * from "./dependency_plan.ts";
export * from "./provide.ts";
export * from "./outside_paths.ts";
