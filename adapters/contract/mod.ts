/**
 * Outcome contracts at the boundary: the zod schema of the contract file
 * (and its JSON Schema), loading, and evaluation of every check with the
 * process runner inside a sandbox profile, with deadline clamping and
 * evidence. The verdict itself is the kernel's (`kernel/contract`); this
 * folder must never decide one on its own.
 *
 * @module
 */
export * from "./schema.ts";
export * from "./load.ts";
export * from "./evaluate.ts";
