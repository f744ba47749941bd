/**
 * THE check runner: runs a contract's checks of one phase (the baseline on the
 * base revision, or a round on the patched tree) in a sandbox profile, one
 * after another (never stopping at the first failure), each timeout clamped to
 * what the run's deadline leaves, and turns each process result into the
 * kernel's {@linkcode CheckObservation}. It decides nothing: the judgement is
 * the kernel's (`judgeBaseline` / `judgeContract`), and sealing receipts is the
 * caller's. Both the baseline and every round of the clean verifier run here.
 *
 * @module
 */
import type {
  CheckObservation,
  ContractCheck,
  OutcomeContract,
} from "../../kernel/contract/types.ts";
import { utf8Tail } from "../process/capture.ts";
import { runProcess } from "../process/run.ts";
import type { ProcessResult } from "../process/types.ts";
import type { SandboxProfile } from "../sandbox/profile.ts";
import { withSandboxSetupFailure } from "./sandbox_setup.ts";
import { parseFailingTests } from "../test_failures/parse.ts";
import type { TestFormat } from "../../kernel/contract/types.ts";
import type { TestOutcome } from "../../kernel/contract/differential.ts";
import { denoTaskCall, structuredReportPlan } from "../test_results/plan.ts";
import { DENO_CONFIG_FILES, denoTaskFor, denoTaskOf } from "../test_results/deno_task.ts";
import { readReport } from "../test_results/read.ts";
import { mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";

/** Bytes of output tail kept as evidence and in baseline captures. */
export const EVIDENCE_TAIL_BYTES = 4096;
/** Bytes captured per stream of a check (what `$json` expectations can see): 1 MiB, as documented. */
export const CHECK_CAPTURE_BYTES = 1024 * 1024;

/** Which checks a phase runs. */
export type CheckPhase = "baseline" | "round";

/** Options of {@linkcode runChecks}. */
export interface RunChecksOptions {
  /** The tree the checks run in (their cwd). */
  readonly cwd: string;
  /** Sandbox profile for every check. */
  readonly sandbox: SandboxProfile;
  /** `baseline`: capture-only and plain checks (no differentials); `round`: every gating check. */
  readonly phase: CheckPhase;
  /** Absolute deadline (epoch ms): each check's timeout is clamped to what is left. */
  readonly deadline?: number;
  /** Cancels the running check; later checks then fail as cancelled. */
  readonly signal?: AbortSignal;
  /** Called with each check's name before it runs (progress). */
  readonly onCheck?: (name: string) => void;
  /** Clock (default `Date.now`). */
  readonly now?: () => number;
  /**
   * The test format of a check, when its runner should also write a structured
   * report (junit through `NODE_OPTIONS` / `PYTEST_ADDOPTS`, vitest flags, the
   * mocha hook: `structuredReportPlan`), read into {@linkcode CheckRecord.structured}.
   * @default none (the text output only)
   */
  readonly reportFormat?: (check: ContractCheck) => TestFormat | null;
  /** Texts a check may take options from (the base's `package.json`, `.mocharc.*`, ...). */
  readonly reportConfigTexts?: readonly string[];
  /** The package script an `npm test` check runs (its reporter flags then go after `--`). */
  readonly packageScript?: (check: ContractCheck) => string | null;
  /**
   * The BASE's `deno.json` / `deno.jsonc` texts by file name: a `deno task NAME` check whose
   * task is one simple `deno test` there, and the same in the tree it runs in, gets deno's
   * junit report through the task (`denoTaskFor`). The tree's own definition is never used:
   * where it differs, no report is asked for and the record says none came
   * ({@linkcode CheckRecord.reportPlanned}), so no per-test result is read from its text.
   * @default none (a `deno task` check is judged by its text and exit code)
   */
  readonly denoConfigs?: ReadonlyMap<string, string>;
}

/** A check's structured report, when vouch added one and could read it. */
export interface StructuredReport {
  /** Per-test outcomes (ids as the text parser of that runner names them, files where given). */
  readonly outcomes: readonly TestOutcome[];
  /** What vouch added to the check, in words. */
  readonly note: string;
}

/** One check of a phase, as it ran (or did not). */
export interface CheckRecord {
  /** The contract's check. */
  readonly check: ContractCheck;
  /** Its timeout after clamping to the deadline, ms (0: no time was left, it never started). */
  readonly timeoutMs: number;
  /** What the kernel judges. */
  readonly observation: CheckObservation;
  /** The process result, or null when it never started. */
  readonly result: ProcessResult | null;
  /** When it started (ms since epoch), or null when it never started. */
  readonly startedAt: number | null;
  /** Its structured report, or null (none added, or unreadable: the text output stands). */
  readonly structured: StructuredReport | null;
  /**
   * Whether vouch had the runner write a structured report (so a `null`
   * {@linkcode structured} means the run left none that could be read). Also
   * true, with no report, for a `deno task` check whose task the tree defines
   * otherwise than the base, where it is one `deno test`: vouch neither adopts
   * the tree's task nor reads per-test results from its text.
   * @default false
   */
  readonly reportPlanned?: boolean;
}

/** What {@linkcode runChecks} returns. */
export interface ChecksRun {
  /** Every check of the phase, in contract order. */
  readonly records: readonly CheckRecord[];
  /** The observations, in contract order (what `judgeBaseline` / `judgeContract` take). */
  readonly observations: readonly CheckObservation[];
  /** Results of the checks that started, by name. */
  readonly results: ReadonlyMap<string, ProcessResult>;
  /** Start times of the checks that started, by name. */
  readonly started: ReadonlyMap<string, number>;
  /** The profile they ran in. */
  readonly sandbox: SandboxProfile;
}

/**
 * Whether `check` runs in `phase`: a round never re-runs capture-only
 * (`baseline`) checks, and a differential is judged against the baseline,
 * never on it, so the baseline does not run it either.
 *
 * @example
 * ```ts
 * import { runsIn } from "./run_checks.ts";
 * const plain = { name: "t", run: { shell: "true" }, expect: [], timeoutMs: 1000, baseline: false, differential: null, tests: null };
 * if (!runsIn(plain, "baseline") || !runsIn(plain, "round")) throw new Error();
 * if (runsIn({ ...plain, baseline: true }, "round")) throw new Error();
 * ```
 */
export function runsIn(check: ContractCheck, phase: CheckPhase): boolean {
  if (phase === "round") return !check.baseline;
  return check.differential === null || check.baseline;
}

/**
 * Runs the checks of `phase` in order and observes each. Fail closed: a check
 * the deadline leaves no time for is not started and counts as timed out (the
 * wall budget ran out); a check stopped at the deadline timed out; a check
 * stopped otherwise (Ctrl-C) was cancelled and proves nothing.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { runChecks } from "./run_checks.ts";
 * import { parseContract } from "./load.ts";
 * const parsed = parseContract({ checks: [{ name: "ok", run: ["true"] }, { name: "no", run: "exit 3" }] });
 * if (!parsed.ok) throw parsed.error;
 * const run = await runChecks(parsed.contract, { cwd: "/", sandbox: { kind: "none" }, phase: "round" });
 * equal(run.observations.map((o) => o.exitCode).join(), "0,3");
 * ```
 */
export async function runChecks(
  contract: OutcomeContract,
  opts: RunChecksOptions,
): Promise<ChecksRun> {
  const now = opts.now ?? Date.now;
  const records: CheckRecord[] = [];
  for (const check of contract.checks) {
    if (!runsIn(check, opts.phase)) continue;
    opts.onCheck?.(check.name);
    records.push(await runOne(check, opts, now));
  }
  const started = records.filter((r) => r.result !== null);
  return {
    records,
    observations: records.map((r) => r.observation),
    results: new Map(started.map((r) => [r.check.name, r.result!])),
    started: new Map(started.map((r) => [r.check.name, r.startedAt!])),
    sandbox: opts.sandbox,
  };
}

async function runOne(
  check: ContractCheck,
  opts: RunChecksOptions,
  now: () => number,
): Promise<CheckRecord> {
  const timeoutMs = clampTimeout(check.timeoutMs, opts.deadline, now);
  if (timeoutMs <= 0) {
    // The wall budget ran out: the run ends budget_exhausted, not "could not run".
    const observation = {
      ...cannotRunObservation(check.name, "the run's deadline left no time"),
      cannotRun: null,
      timedOut: true,
    };
    return { check, timeoutMs, observation, result: null, startedAt: null, structured: null };
  }
  const planned = await reportPlan(check, opts);
  const plan = planned === "withheld" ? null : planned;
  const startedAt = now();
  const ran = await runProcess({
    ...(plan !== null && plan.command !== null
      ? { shell: plan.command }
      : "argv" in check.run
      ? { argv: check.run.argv }
      : { shell: check.run.shell }),
    cwd: opts.cwd,
    env: { NO_COLOR: "1" },
    // The structured-report hook vouch composed (NODE_OPTIONS / PYTEST_ADDOPTS / VOUCH_MOCHA_REPORT).
    ...(plan !== null ? { vouchEnv: plan.env } : {}),
    timeoutMs,
    ...(opts.signal !== undefined ? { signal: opts.signal } : {}),
    sandbox: opts.sandbox,
    maxCaptureBytes: CHECK_CAPTURE_BYTES,
  });
  // bwrap that could not set the sandbox up ran nothing: the check could not run (fails closed).
  const result = await withSandboxSetupFailure(ran, opts.sandbox, opts.cwd);
  // The runner's observation: test-output parsing and the SWE-bench-like guard included.
  const observed = observeCheck(check, result);
  const atDeadline = opts.deadline !== undefined && now() >= opts.deadline - 50;
  const observation = opts.signal?.aborted === true && observed.cannotRun === null
    ? atDeadline ? { ...observed, timedOut: true } : { ...observed, cannotRun: "cancelled" }
    : observed;
  const structured = plan === null ? null : await readStructured(plan, opts.cwd);
  return {
    check,
    timeoutMs,
    observation,
    result,
    startedAt,
    structured,
    ...(planned !== null ? { reportPlanned: true } : {}),
  };
}

/** Where a check's structured report is written: a private directory in the tree. */
const REPORT_DIR = ".vouch-test-report";

type Plan = Extract<ReturnType<typeof structuredReportPlan>, { ok: true }>["plan"];

/**
 * A check's report plan, or null (none); `withheld`: the base's `deno.json(c)` makes a
 * `deno task` check's task one `deno test` (the baseline's per-test report came through it) and
 * the tree defines it otherwise, so no report is asked for and none may be read from its text
 * either.
 */
async function reportPlan(
  check: ContractCheck,
  opts: RunChecksOptions,
): Promise<Plan | null | "withheld"> {
  const format = opts.reportFormat?.(check) ?? null;
  if (format === null) return null;
  const reportDir = join(opts.cwd, REPORT_DIR);
  const command = "shell" in check.run ? check.run.shell : check.run.argv.join(" ");
  const task = format === "deno" ? await denoTaskOfTree(command, opts) : null;
  if (task === "withheld") return task;
  const planOf = (c: string) =>
    structuredReportPlan({
      command: c,
      format,
      reportDir,
      ...(opts.reportConfigTexts !== undefined ? { configTexts: opts.reportConfigTexts } : {}),
      nodeMajor: Number(process.versions.node.split(".")[0]),
      ...(task !== null
        ? { denoTask: (name: string) => name === task.name ? task.command : null }
        : {}),
    });
  let planned = planOf(command);
  // `npm test` whose script runs vitest directly: the same flags, passed through npm's `--`
  // (the same script and lifecycle run; only the reporters are added).
  const script = planned.ok ? null : opts.packageScript?.(check) ?? null;
  if (script !== null && /^\s*npm\s+(?:test|t|run(?:-script)?\s+[\w:.-]+)\s*$/.test(command)) {
    const viaScript = planOf(script);
    const flags = viaScript.ok && viaScript.plan.command?.startsWith(script.trim())
      ? viaScript.plan.command.slice(script.trim().length).trim()
      : "";
    if (viaScript.ok && flags !== "") {
      planned = {
        ok: true,
        plan: {
          ...viaScript.plan,
          command: `${command.trim()} -- ${flags}`,
          note: `${viaScript.plan.note} (after npm's --)`,
        },
      };
    }
  }
  if (!planned.ok) return null;
  // A changed command runs as a shell string: an argv check is rewritten only when joining its
  // words by spaces gives the same words back (no quoting needed), so what runs is unchanged.
  if (planned.plan.command !== null && "argv" in check.run) {
    if (!check.run.argv.every((w) => /^[\w@%+=:,./-]+$/.test(w))) return null;
  }
  try {
    await rm(reportDir, { recursive: true, force: true });
    await mkdir(reportDir, { recursive: true });
    for (const f of planned.plan.files) await writeFile(f.path, f.content);
  } catch {
    return null;
  }
  return planned.plan;
}

/**
 * The task a `deno task NAME` check runs, as the base defines it, when it is one simple
 * `deno test` there and the tree's `deno.json` / `deno.jsonc` give deno the same; `withheld`
 * when the base's is one and the tree's is not the same (a config that exists and cannot be
 * read counts as not the same); null when the base's is none.
 */
async function denoTaskOfTree(
  command: string,
  opts: RunChecksOptions,
): Promise<{ readonly name: string; readonly command: string } | "withheld" | null> {
  const call = denoTaskCall(command);
  if (call === null || opts.denoConfigs === undefined) return null;
  if (!denoTaskOf(opts.denoConfigs, call.name).ok) return null;
  const tree = new Map<string, string>();
  for (const name of DENO_CONFIG_FILES) {
    try {
      const path = join(opts.cwd, name);
      if ((await stat(path)).size > 1024 * 1024) return "withheld";
      tree.set(name, await readFile(path, "utf8"));
    } catch (e) {
      if ((e as { code?: unknown }).code !== "ENOENT") return "withheld";
    }
  }
  const found = denoTaskFor(opts.denoConfigs, tree, call.name);
  return found.ok ? { name: call.name, command: found.command } : "withheld";
}

async function readStructured(plan: Plan, cwd: string): Promise<StructuredReport | null> {
  try {
    const info = await stat(plan.reportPath);
    if (!info.isFile() || info.size > 64 * 1024 * 1024) return null;
    const outcomes = readReport(plan, await readFile(plan.reportPath, "utf8"), { root: cwd });
    return outcomes.length > 0 ? { outcomes, note: plan.note } : null;
  } catch {
    return null;
  } finally {
    await rm(join(cwd, REPORT_DIR), { recursive: true, force: true }).catch(() => {});
  }
}

function text(s: ProcessResult["stdout"]): string {
  return s.truncated ? `${s.head}\n…\n${s.tail}` : s.head;
}

/**
 * The kernel observation of a check from its process result: stdout/stderr
 * text (head and tail when truncated), digest, 4 KiB tail, and the failing
 * tests parsed when the check declares `tests` (so the inconclusive guard
 * applies).
 *
 * @example
 * ```ts
 * import { observeCheck } from "./run_checks.ts";
 * import { runProcess } from "../process/run.ts";
 * const check = { name: "t", run: { argv: ["true"] }, expect: [], timeoutMs: 1000, baseline: false, differential: null, tests: "cargo" as const };
 * const obs = observeCheck(check, await runProcess({ argv: ["true"], cwd: "/" }));
 * if (obs.testReport?.ran !== null) throw new Error();
 * ```
 */
export function observeCheck(check: ContractCheck, r: ProcessResult): CheckObservation {
  const stdout = text(r.stdout);
  const stderr = text(r.stderr);
  const cannotRun = r.spawnError !== null ? `${r.spawnError.code}: ${r.spawnError.message}` : null;
  return {
    name: check.name,
    cannotRun,
    exitCode: r.exitCode,
    timedOut: r.timedOut || r.cancelled,
    stdout,
    stderr,
    stdoutTruncated: r.stdout.truncated,
    stdoutDigest: r.stdout.sha256,
    stdoutTail: utf8Tail(r.stdout.truncated ? r.stdout.tail : r.stdout.head, EVIDENCE_TAIL_BYTES),
    testReport: check.tests !== null && cannotRun === null
      ? parseFailingTests(check.tests, `${stdout}\n${stderr}`)
      : null,
    ...(r.limit !== null ? { limit: r.limit } : {}),
  };
}

/**
 * The observation of a check that never ran: it fails closed through
 * `cannotRun`, with exit 124 and no output.
 *
 * @example
 * ```ts
 * import { cannotRunObservation } from "./run_checks.ts";
 * if (cannotRunObservation("unit", "cancelled").cannotRun !== "cancelled") throw new Error();
 * ```
 */
export function cannotRunObservation(name: string, reason: string): CheckObservation {
  return {
    name,
    cannotRun: reason,
    exitCode: 124,
    timedOut: false,
    stdout: "",
    stderr: "",
    stdoutTruncated: false,
    stdoutDigest: "",
    stdoutTail: "",
    testReport: null,
  };
}

/**
 * A check's timeout clamped to what the run's deadline leaves (0 = no time left).
 *
 * @example
 * ```ts
 * import { clampTimeout } from "./run_checks.ts";
 * if (clampTimeout(120_000, 1_000 + 500, () => 1_000) !== 500) throw new Error();
 * if (clampTimeout(120_000, undefined) !== 120_000) throw new Error();
 * ```
 */
export function clampTimeout(
  timeoutMs: number,
  deadline: number | undefined,
  now: () => number = Date.now,
): number {
  const remaining = deadline === undefined ? Infinity : deadline - now();
  return Math.max(0, Math.min(timeoutMs, remaining));
}
