/**
 * Path confinement: decides, lexically and without I/O, whether a name from a
 * patch is a safe repository-relative path, and gives the comparison key used
 * for forbidden-glob matching and collision detection. It must never touch a
 * filesystem: checks against the real tree (symlinks on disk, `lstat`) belong to
 * adapters.
 *
 * @module
 */
export * from "./codes.ts";
export * from "./confine_path.ts";
export * from "./path_key.ts";
