/**
 * The phases of `deno task test`, in ONE place: `tools/run_tests.ts` runs
 * them all at once, each as its own `deno test` process (exiting with the
 * status of the first that fails), and
 * `tests/layering/serial_phase_test.ts` checks that every test file that
 * changes process-wide state is in {@linkcode SERIAL}.
 *
 * Why a serial phase: `deno test --parallel` runs test files as workers of
 * ONE process, which share the environment, the working directory and the
 * process's cgroup. A file that sets `Deno.env`, changes directory or makes
 * cgroups races every other file of a parallel phase, so it runs in the
 * serial phase, and the parallel phase ignores it. The serial phase is a
 * process of its own, so it runs beside the parallel one: one of its files at
 * a time, while the parallel phase's workers fill the other cores.
 *
 * @module
 */
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The kernel and its tests: run with no permissions at all. */
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
 * `Deno.chdir`, cgroups), or must not share one `deno test` process with other
 * files (the resource limits' fork loops and 400 MiB trees, the npm package
 * built once per process): the serial phase runs them one file at a time, and
 * the parallel phase ignores them. Every other file runs in the parallel phase.
 */
export const SERIAL: readonly string[] = [
  "tests/cli/attest_test.ts",
  "tests/cli/gc_test.ts",
  "tests/cli/inspect_test.ts",
  "tests/cli/run_test.ts",
  "tests/cli/verify_test.ts",
  "tests/redteam/sandbox/",
  "tests/adapters/batch/cli_progress_test.ts",
  "tests/adapters/batch/shared_deps_test.ts",
  "tests/adapters/process/run_test.ts",
  "tests/redteam/batch/output_hygiene_test.ts",
  "tests/redteam/e2e/applied_modes_test.ts",
  "tests/redteam/log_tamper_test.ts",
  "tests/schemas/attest_predicates_test.ts",
  "tests/npm/",
];

/**
 * The serial entries that run in a serial process of their own: the npm
 * package's tests, which build and pack the package once per process and
 * take most of the serial time (npm installs, tsc, esbuild). The other serial
 * files go one at a time in a second process beside it: each file still runs
 * alone in its process (process-wide state is per process), and the package
 * is still built once.
 */
export const SERIAL_APART: readonly string[] = ["tests/npm/"];

/**
 * The parallel phase's longest files (CPU seconds alone, or waits on real
 * sleeps and kills), which it starts first: `deno test` keeps the order of the
 * files it is given, and a long file that starts last leaves the other cores
 * idle while it runs alone at the end. The rest of the phase follows
 * ({@linkcode parallelFiles}).
 */
export const FIRST: readonly string[] = [
  "tests/redteam/bundles/bundles_test.ts",
  "tests/cli/as_users_run_test.ts",
  "tests/golden/real_projects/real_npm_test.ts",
  "tests/golden/crash_recovery_test.ts",
  "tests/golden/real_projects/shapes_test.ts",
  "tests/golden/verdicts_test.ts",
  "tests/golden/oracle_node_test.ts",
  "tests/redteam/e2e/redteam_e2e_test.ts",
  "tests/redteam/oracle/package_scripts_test.ts",
  "tests/golden/golden_test.ts",
  "tests/golden/openai_backend_test.ts",
  "tests/golden/oracle/jest_test.ts",
  "tests/redteam/oracle/jest_test.ts",
  "tests/golden/oracle/vitest_test.ts",
  "tests/golden/oracle/vitest_corrected_test.ts",
  "tests/redteam/oracle/vitest_test.ts",
  "tests/redteam/oracle/vitest_config_test.ts",
  "tests/redteam/oracle/vitest_delete_test.ts",
  "tests/redteam/oracle/vitest_files_test.ts",
  "tests/redteam/oracle/vitest_reporter_test.ts",
  "tests/redteam/oracle/run_vitest_test.ts",
  "tests/cli/baseline_cache_test.ts",
  "tests/golden/real_projects/why_test.ts",
  "tests/golden/real_projects/oracle_shapes_test.ts",
  "tests/golden/oracle/node_test.ts",
  "tests/golden/oracle/pytest_test.ts",
  "tests/golden/batch_test.ts",
  "tests/cli/errors_test.ts",
];

/**
 * What `deno task test:fast` runs besides the kernel: unit and in-memory
 * tests (parsers, schemas, the log, receipts, reports, the layering rules),
 * none of which starts git, a sandbox or the CLI, so the task stays under a
 * minute. `deno task test` runs them too, in its parallel phase.
 */
export const FAST: readonly string[] = [
  "tests/layering/adapters_acyclic_test.ts",
  "tests/layering/doc_examples_test.ts",
  "tests/layering/error_codes_test.ts",
  "tests/layering/serial_phase_test.ts",
  "tests/layering/size_limits_test.ts",
  "tests/docs/",
  "tests/schemas/contract_schema_test.ts",
  "tests/adapters/contract/",
  "tests/adapters/test_failures/",
  "tests/adapters/test_results/junit_test.ts",
  "tests/adapters/log/fast_path_test.ts",
  "tests/adapters/log/record_test.ts",
  "tests/adapters/log/replay_test.ts",
  "tests/adapters/log/verify_test.ts",
  "tests/adapters/bundle/docs_test.ts",
  "tests/adapters/bundle/schemas_test.ts",
  "tests/adapters/bundle/strict_json_test.ts",
  "tests/adapters/batch/classify_test.ts",
  "tests/adapters/batch/input_property_test.ts",
  "tests/adapters/redact/",
  "tests/adapters/text/",
  "tests/adapters/verify_command/",
  "tests/redteam/diff_redteam_test.ts",
  "tests/redteam/bundles/fuzz_test.ts",
  "tests/cli/render_test.ts",
];

/** A test file by Deno's default pattern (`*_test.ts`, `*.test.ts`, `test.ts`). */
export function isTestFile(path: string): boolean {
  return /(?:^|[/_.])test\.(?:ts|tsx|mts|js|mjs|jsx)$/.test(path);
}

function inList(rel: string, list: readonly string[]): boolean {
  return list.some((s) => s.endsWith("/") ? rel.startsWith(s) : rel === s);
}

/**
 * Every test file `deno test` would find in the repository (deno.json's
 * `exclude`, `.git` and every `node_modules` left out), repository-relative,
 * sorted.
 */
export function testFiles(): string[] {
  const config = JSON.parse(Deno.readTextFileSync(join(ROOT, "deno.json")));
  const exclude: string[] = config.exclude ?? [];
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of Deno.readDirSync(dir)) {
      const path = join(dir, entry.name);
      const rel = relative(ROOT, path);
      if (entry.name === ".git" || entry.name === "node_modules") continue;
      if (exclude.some((e) => rel === e.replace(/\/$/, "") || rel.startsWith(e))) continue;
      if (entry.isDirectory) walk(path);
      else if (entry.isFile && isTestFile(rel)) out.push(rel);
    }
  };
  walk(ROOT);
  return out.sort();
}

/**
 * The parallel phase's files, in the order it starts them: {@linkcode FIRST},
 * then every other test file that is neither the kernel's nor serial. Listed
 * one by one because `deno test` drops `--ignore` once a file is named.
 *
 * @example
 * ```ts
 * import { equal, ok } from "node:assert/strict";
 * import { FIRST, parallelFiles, SERIAL } from "./_phases.ts";
 * const files = parallelFiles();
 * equal(files[0], FIRST[0]);
 * ok(!files.some((f) => SERIAL.some((s) => f.startsWith(s))));
 * ```
 */
export function parallelFiles(): string[] {
  const rest = testFiles().filter((f) =>
    !inList(f, KERNEL) && !inList(f, SERIAL) && !FIRST.includes(f)
  );
  return [...FIRST, ...rest];
}

/** One `deno test` (or `deno check`) run of the test task. */
export interface Phase {
  /** What the phase runs, for the runner's log line. */
  readonly name: string;
  /** The Deno subcommand: `test` (the default), or `check` for the type-check phases. */
  readonly command?: "test" | "check";
  /** The arguments after `deno test` (or `deno check`). */
  readonly args: readonly string[];
  /** Extra environment (the parallel phases' `DENO_JOBS`). */
  readonly env?: Readonly<Record<string, string>>;
}

const PARALLEL = { DENO_JOBS: "4" } as const;

/**
 * The parallel phase's workers: more than the 2 cores CI has, since most of
 * its files wait on the processes they start (git, bwrap, the CLI, test
 * runners, real sleeps) more than they compute.
 */
const TESTS_PARALLEL = { DENO_JOBS: "6" } as const;

/** The Markdown documents whose code blocks the examples phase runs. */
function markdownDocs(): string[] {
  const docs = EXAMPLES.flatMap((e) =>
    e.endsWith(".md")
      ? [e]
      : e.endsWith("/")
      ? [...Deno.readDirSync(join(ROOT, e))].filter((d) => d.isFile && d.name.endsWith(".md"))
        .map((d) => `${e}${d.name}`)
      : []
  );
  return docs.sort();
}

/**
 * The type checks of the test task, each once: `deno check --doc .` (every
 * module, tests included, and every JSDoc example: the very command of
 * `deno task check`, so its cache answers when that ran first) and the
 * Markdown documents' code blocks. The test phases then run `--no-check`:
 * each `deno test` would otherwise type-check again what it runs (the
 * examples phase every module of adapters/ and cli/, the parallel phase every
 * test and what it imports), four times the same work on CI's 2 cores.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { TYPE_CHECKS } from "./_phases.ts";
 * deepEqual(TYPE_CHECKS[0]!.args, ["--doc", "."]);
 * deepEqual(TYPE_CHECKS[1]!.args.filter((a) => !a.endsWith(".md")), ["--doc-only"]);
 * ```
 */
export const TYPE_CHECKS: readonly Phase[] = [
  { name: "types (modules, tests, JSDoc examples)", command: "check", args: ["--doc", "."] },
  {
    name: "types (Markdown code blocks)",
    command: "check",
    args: ["--doc-only", ...markdownDocs()],
  },
];

/**
 * The test task's phases (run at once, printed in this order): the kernel
 * without permissions, every example in parallel, every other test file in
 * parallel ({@linkcode FIRST} first), and the serial list one file at a time
 * (in two processes: {@linkcode SERIAL_APART} in its own), each `--no-check`;
 * then the {@linkcode TYPE_CHECKS}.
 *
 * @example
 * ```ts
 * import { deepEqual, equal, ok } from "node:assert/strict";
 * import { PHASES, SERIAL, SERIAL_APART, TYPE_CHECKS } from "./_phases.ts";
 * equal(PHASES.length, 5 + TYPE_CHECKS.length);
 * ok(!PHASES[2]!.args.includes(SERIAL[0]!));
 * equal(PHASES[3]!.args.at(-1), SERIAL.filter((s) => !SERIAL_APART.includes(s)).at(-1));
 * deepEqual(PHASES[4]!.args.filter((a) => !a.startsWith("-")), [...SERIAL_APART]);
 * ok(PHASES.slice(0, 5).every((p) => p.args.includes("--no-check")));
 * ```
 */
export const PHASES: readonly Phase[] = [
  { name: "kernel (no permissions)", args: ["--no-prompt", "--no-check", "--doc", ...KERNEL] },
  {
    name: "examples",
    args: ["--no-prompt", "--no-check", "-A", "--parallel", "--doc", ...EXAMPLES],
    env: PARALLEL,
  },
  {
    name: "tests (parallel)",
    args: [
      "--no-prompt",
      "--no-check",
      "-A",
      "--parallel",
      ...parallelFiles(),
    ],
    env: TESTS_PARALLEL,
  },
  {
    name: "tests (serial)",
    args: ["--no-prompt", "--no-check", "-A", ...SERIAL.filter((s) => !SERIAL_APART.includes(s))],
  },
  {
    name: "tests (serial: npm package)",
    args: ["--no-prompt", "--no-check", "-A", ...SERIAL.filter((s) => SERIAL_APART.includes(s))],
  },
  ...TYPE_CHECKS,
];

/**
 * `deno task test:fast`'s phases: the kernel phase of {@linkcode PHASES}, then
 * the {@linkcode FAST} files in parallel, each type-checking what it runs.
 *
 * @example
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
 * import { FAST, FAST_PHASES, PHASES } from "./_phases.ts";
 * deepEqual(FAST_PHASES[0]!.args, PHASES[0]!.args.filter((a) => a !== "--no-check"));
 * equal(FAST_PHASES[1]!.args.at(-1), FAST.at(-1));
 * ```
 */
export const FAST_PHASES: readonly Phase[] = [
  { ...PHASES[0]!, args: PHASES[0]!.args.filter((a) => a !== "--no-check") },
  { name: "units (parallel)", args: ["--no-prompt", "-A", "--parallel", ...FAST], env: PARALLEL },
];
