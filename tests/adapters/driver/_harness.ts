/**
 * The driver in memory: `runTask` (the interpreter of the kernel's actions)
 * with a fake clock, a scripted patch source (no git, no worktree, no agent)
 * and a scripted verifier (no clean tree, no sandbox, no process), behind the
 * driver's own ports (`PatchSource`, `Verifier`). Only the event log and the
 * artefacts touch a temp directory. A task runs in milliseconds, so the
 * interpreter's logic (rounds, prompts, verdicts, budgets, minting) is tested
 * here; real-repo tests stay as integration tests.
 */
import type {
  BackendFailure,
  BackendResult,
  BackendStatus,
} from "../../../adapters/backends/types.ts";
import type {
  PatchSource,
  RoundPatch,
  SourceRound,
} from "../../../adapters/driver/patch_source.ts";
import { runTask } from "../../../adapters/driver/run_task.ts";
import type { RunOutcome } from "../../../adapters/driver/outcome.ts";
import { importMacKey, type MacKey } from "../../../adapters/keys/mac_key.ts";
import { EventLog } from "../../../adapters/log/store.ts";
import { ReceiptRecorder } from "../../../adapters/receipts/chain.ts";
import { receiptDigest } from "../../../adapters/receipts/receipt.ts";
import type { VerificationRun, Verifier } from "../../../adapters/verification/verifier.ts";
import { changedPaths } from "../../../kernel/diff/changed_paths.ts";
import { tryParseGitDiff } from "../../../kernel/diff/parse.ts";
import { sha256Hex } from "../../../adapters/digest/sha256.ts";

/** A one-line change of `file` as `git diff` writes it. */
export function oneLineDiff(file: string, from = "a", to = "b"): string {
  return `diff --git a/${file} b/${file}\n--- a/${file}\n+++ b/${file}\n@@ -1 +1 @@\n-${from}\n+${to}\n`;
}

/** One scripted backend round: what the agent claims, what it changed, how long it took. */
export interface ScriptedRound {
  readonly status?: BackendStatus;
  /** The round's patch (`git diff` text); empty: it changed nothing. */
  readonly diff: string;
  /** Milliseconds the fake clock moves while the round runs. @default 1000 */
  readonly takesMs?: number;
  /** Whether the checks pass on this round's patch. @default false */
  readonly passes?: boolean;
  /** A non-retryable failure (`failure.retryable: false`). */
  readonly fatal?: boolean;
}

/** What a harness run returns besides the outcome: what each part was asked. */
export interface HarnessRun {
  readonly outcome: RunOutcome;
  /** The feedback each backend round got (undefined for the first). */
  readonly prompts: readonly (string | undefined)[];
  /** How many verifications ran. */
  readonly verifications: number;
  /** Kinds of the log's records, in order. */
  readonly kinds: readonly string[];
  /** What the driver asked of the source and the verifier, in order: `start`, `baseline`, `round`. */
  readonly order: readonly string[];
}

/** Options of {@linkcode runScripted}. */
export interface HarnessOptions {
  readonly rounds: readonly ScriptedRound[];
  readonly maxRounds?: number;
  readonly wallTimeMs?: number;
  readonly forbid?: readonly string[];
  /**
   * The source starts its agent ahead of the rounds (`PatchSource.start`): `null` it starts,
   * a failure it cannot. Absent: a source with nothing to start.
   */
  readonly start?: BackendFailure | null;
  /** Whether the contract runs on the base first. @default false */
  readonly baseline?: boolean;
  /**
   * The task's deadline, this many ms after the clock's start (`RunTaskOptions.deadline`, as
   * `vouch run --timeout` sets it); the baseline then ends at it, as a check killed at the
   * deadline does.
   */
  readonly deadlineInMs?: number;
  /** Each read of the clock moves it on by this many ms. @default 0 */
  readonly msPerRead?: number;
  /** Writing the log's first record (the kernel's init) moves the clock on this many ms (a slow disk). */
  readonly firstRecordMs?: number;
}

const CONTRACT_DIGEST = "sha256:" + "c".repeat(64);

function claim(r: ScriptedRound): BackendResult {
  const status = r.status ?? "ok";
  return {
    backend: "scripted",
    status,
    summary: "done",
    selfClaimedDone: status === "ok",
    commandsRun: [],
    risks: [],
    usage: {},
    transcript: null,
    exitCode: null,
    protocolIssues: 0,
    ...(r.fatal === true
      ? { failure: { code: "config", message: "misconfigured", retryable: false } }
      : {}),
  };
}

/** A patch source that plays the scripted rounds, moving the fake clock. */
function scriptedSource(
  rounds: readonly ScriptedRound[],
  clock: { t: number },
  prompts: (string | undefined)[],
  order: string[],
  start: BackendFailure | null | undefined,
): PatchSource {
  let current: ScriptedRound | null = null;
  return {
    id: "scripted",
    emptyDetail: "the backend changed no file",
    open: () => Promise.resolve("/harness/worktree"),
    ...(start !== undefined
      ? {
        start: (task: { worktree: string }) => {
          order.push(`start:${task.worktree}`);
          return Promise.resolve(start);
        },
      }
      : {}),
    produce(round: SourceRound) {
      order.push("round");
      current = rounds[round.task.attempt - 1] ?? { diff: "" };
      prompts.push(round.task.feedback);
      clock.t += current.takesMs ?? 1000;
      return Promise.resolve({ claim: claim(current), outside: [] });
    },
    patch(): Promise<RoundPatch> {
      const bytes = new TextEncoder().encode(current?.diff ?? "");
      const parsed = tryParseGitDiff(bytes);
      const files = parsed.ok ? changedPaths(parsed.diff).map((c) => c.path) : [];
      return Promise.resolve({
        bytes,
        digest: sha256Hex(bytes),
        files,
        diff: parsed.ok ? parsed.diff : null,
        changes: files.length,
      });
    },
    endTask: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

const zero = { digest: "sha256:" + "0".repeat(64), bytes: 0 };

/** A verifier that passes a round's patch when its script says so (MAC'd receipt included). */
function scriptedVerifier(
  rounds: readonly ScriptedRound[],
  receipts: ReceiptRecorder,
  taskId: string,
  counter: { n: number },
  order: string[],
  baselineEnds: () => void,
): Verifier {
  const run = async (passes: boolean): Promise<VerificationRun> => {
    const receipt = await receipts.record({
      task: taskId,
      tool: "check:unit",
      argv: ["deno", "test"],
      cwd: "/harness/clean",
      sandboxProfile: "none",
      envNames: ["PATH"],
      startedAt: 1,
      endedAt: 2,
      exit: { code: passes ? 0 : 1, signal: null, timedOut: false },
      stdout: zero,
      stderr: zero,
    });
    const digest = receiptDigest(receipt);
    const outcome = passes ? "pass" as const : "fail" as const;
    return {
      ran: true,
      checks: [{ id: "unit", outcome, receipts: [digest] }],
      summaries: [{
        name: "unit",
        passed: passes,
        outcome,
        exitCode: passes ? 0 : 1,
        durationMs: 1,
        outputTail: passes ? "" : "expected 5, got -1",
      }],
      passed: passes,
      refusals: [],
      diagnostics: [],
      sandbox: "none",
      checkEvidence: [{ id: "unit", outcome, receipt: digest }],
      receipts: [receipt],
      setupReceipts: [],
      evidence: {},
    } as VerificationRun;
  };
  return {
    contractDigest: CONTRACT_DIGEST,
    baseline: () => (order.push("baseline"), baselineEnds(), run(false)),
    verify: (round) => {
      counter.n++;
      return run(rounds[round - 1]?.passes === true);
    },
    settle: () => Promise.resolve(),
  };
}

let key: MacKey | null = null;

/** Runs one task through the real driver and kernel with the scripted parts. */
export async function runScripted(opts: HarnessOptions): Promise<HarnessRun> {
  key ??= await importMacKey(new Uint8Array(32).fill(9), "memory");
  const dir = await Deno.makeTempDir({ prefix: "vouch-harness-" });
  const log = await EventLog.open(`${dir}/events.jsonl`);
  const clock = { t: 1_700_000_000_000 };
  if (opts.firstRecordMs !== undefined) {
    const append = log.append.bind(log);
    let first = true;
    log.append = (record) => {
      if (first) clock.t += opts.firstRecordMs!;
      first = false;
      return append(record);
    };
  }
  const prompts: (string | undefined)[] = [];
  const counter = { n: 0 };
  const order: string[] = [];
  const taskId = "t-harness";
  const deadline = opts.deadlineInMs === undefined ? undefined : clock.t + opts.deadlineInMs;
  const step = opts.msPerRead ?? 0;
  try {
    const outcome = await runTask({
      repo: "/harness/repo",
      base: "0".repeat(40),
      goal: "make the tests pass",
      source: scriptedSource(opts.rounds, clock, prompts, order, opts.start),
      verifier: scriptedVerifier(
        opts.rounds,
        ReceiptRecorder.resume(log, key),
        taskId,
        counter,
        order,
        () => {
          if (deadline !== undefined) clock.t = Math.max(clock.t, deadline);
        },
      ),
      rules: { allow: [], forbid: opts.forbid ?? [], protect: [] },
      maxRounds: opts.maxRounds ?? opts.rounds.length,
      wallTimeMs: opts.wallTimeMs ?? 3_600_000,
      log,
      key,
      artefactsDir: `${dir}/runs/${taskId}`,
      taskId,
      baseline: opts.baseline ?? false,
      ...(deadline !== undefined ? { deadline } : {}),
      now: () => (clock.t += step),
    });
    await log.flush();
    const kinds = (await Deno.readTextFile(`${dir}/events.jsonl`)).trim().split("\n")
      .map((l) => JSON.parse(l).kind as string);
    return { outcome, prompts, verifications: counter.n, kinds, order };
  } finally {
    await log.close();
    await Deno.remove(dir, { recursive: true });
  }
}
