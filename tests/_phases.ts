/**
 * The phases of `deno task test`, in ONE place: `tools/run_tests.ts` runs
 * them in order (stopping at the first that fails), and
 * `tests/layering/serial_phase_test.ts` checks that every test file that
 * changes process-wide state is in {@linkcode SERIAL}.
 *
 * Why a serial phase: `deno test --parallel` runs test files as workers of
 * ONE process, which share the environment, the working directory and the
 * process's cgroup. A file that sets `Deno.env`, changes directory or makes
 * cgroups races every other file of a parallel phase, so it runs in the last,
 * serial phase, and the parallel phase ignores it.
 *
 * @module
 */

/** The kernel and its tests: run first, with no permissions at all. */
export const KERNEL: readonly string[] = ["kernel/", "tests/kernel/"];

/** Where the JSDoc examples and the documentation's code blocks are. */
export const EXAMPLES: readonly string[] = [
  "mod.ts",
  "adapters/",
  "cli/",
  "wasm/",
  "docs/",
  "README.md",
];

/**
 * Test files and folders that change process-wide state (`Deno.env.set`,
 * `Deno.chdir`, cgroups) or must not share the machine with other test files
 * (timing-sensitive, whole-package builds): the serial phase runs them one
 * file at a time, and the parallel phase ignores them.
 */
export const SERIAL: readonly string[] = [
  "tests/cli/",
  "tests/redteam/sandbox/",
  "tests/adapters/batch/cli_progress_test.ts",
  "tests/adapters/batch/shared_deps_test.ts",
  "tests/adapters/process/run_test.ts",
  "tests/redteam/batch/output_hygiene_test.ts",
  "tests/redteam/e2e/applied_modes_test.ts",
  "tests/redteam/log_tamper_test.ts",
  "tests/schemas/attest_predicates_test.ts",
  "tests/reimpl/",
  "tests/npm/",
];

/** One `deno test` run of the test task. */
export interface Phase {
  /** What the phase runs, for the runner's log line. */
  readonly name: string;
  /** The arguments after `deno test`. */
  readonly args: readonly string[];
  /** Extra environment (the parallel phases' `DENO_JOBS`). */
  readonly env?: Readonly<Record<string, string>>;
}

const PARALLEL = { DENO_JOBS: "4" } as const;

/**
 * The test task's phases, in order: the kernel without permissions, every
 * example in parallel, every other test file in parallel, then the serial list.
 *
 * @example
 * ```ts
 * import { equal, ok } from "node:assert/strict";
 * import { PHASES, SERIAL } from "./_phases.ts";
 * equal(PHASES.length, 4);
 * ok(PHASES[2]!.args.some((a) => a.startsWith("--ignore=") && a.includes(SERIAL[0]!)));
 * equal(PHASES[3]!.args.at(-1), SERIAL.at(-1));
 * ```
 */
export const PHASES: readonly Phase[] = [
  { name: "kernel (no permissions)", args: ["--no-prompt", "--doc", ...KERNEL] },
  {
    name: "examples",
    args: ["--no-prompt", "-A", "--parallel", "--doc", ...EXAMPLES],
    env: PARALLEL,
  },
  {
    name: "tests (parallel)",
    args: ["--no-prompt", "-A", "--parallel", `--ignore=${[...KERNEL, ...SERIAL].join(",")}`],
    env: PARALLEL,
  },
  { name: "tests (serial)", args: ["--no-prompt", "-A", ...SERIAL] },
];
