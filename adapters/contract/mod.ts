/**
 * Outcome contracts at the boundary: the zod schema of the contract file
 * (and its JSON Schema), loading, the contract `--verify CMD` stands for, and
 * the one check runner (`runChecks`: every check of a phase with the process
 * runner inside a sandbox profile, deadline clamping, observations). The
 * verdict itself is the kernel's (`kernel/contract`); this folder must never
 * decide one on its own.
 *
 * @module
 */
export * from "./schema.ts";
export * from "./load.ts";
export * from "./from_command.ts";
export * from "./run_checks.ts";
