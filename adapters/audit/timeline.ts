import { FINAL_STATES, type FinalState, taskOutcome } from "../../kernel/lifecycle/outcome.ts";
import type { TaskRecord } from "../../kernel/lifecycle/state.ts";
import { LOG_KINDS } from "../log/kinds.ts";
import type { LogRecord } from "../log/record.ts";
import { redactSecrets } from "../redact/redact.ts";

/** A status change of a task, from the kernel's own audit actions. */
export interface PhaseChange {
  /** Sequence number of the log record. */
  readonly seq: number;
  /** Time of the kernel event that made the change (its `at`). */
  readonly at: number;
  /** Status before the change (null for the first). */
  readonly from: string | null;
  /** Status after the change. */
  readonly to: string;
  /** Why the kernel moved the task. */
  readonly reason: string;
}

/** One check result, from the kernel's baseline/verification events. */
export interface CheckLine {
  /** Sequence number of the log record. */
  readonly seq: number;
  /** Whether the check ran on the base or in a round. */
  readonly phase: "baseline" | "round";
  /** The round, counted from 1 (null for the baseline). */
  readonly round: number | null;
  /** The check's id. */
  readonly id: string;
  /** The check's outcome as recorded. */
  readonly outcome: string;
}

/** One command receipt of a task. */
export interface ReceiptLine {
  /** Sequence number of the log record. */
  readonly seq: number;
  /** The tool the receipt is of. */
  readonly tool: string;
  /** The command's exit code. */
  readonly exit: number;
  /** Whether the command hit its timeout. */
  readonly timedOut: boolean;
  /** How long the command ran, milliseconds. */
  readonly durationMs: number;
  /** The sandbox the command ran in (`bwrap`, `bwrap+network`, `none`). */
  readonly sandbox: string;
}

/** Everything `vouch inspect` shows for one task. */
export interface TaskTimeline {
  /** The task id. */
  readonly task: string;
  /** Sequence number of the task's first log record. */
  readonly firstSeq: number;
  /** Sequence number of the task's last log record. */
  readonly lastSeq: number;
  /** From the task's first to its last kernel event time (record timestamps when absent). */
  readonly durationMs: number;
  /** The task's status changes, in log order. */
  readonly phases: readonly PhaseChange[];
  /** Backend rounds started (first attempt included). */
  readonly rounds: number;
  /** Check results, in log order. */
  readonly checks: readonly CheckLine[];
  /** Command receipts, in log order. */
  readonly receipts: readonly ReceiptLine[];
  /**
   * How the task ended, in the verdict table's terms (`verified`, `rejected`,
   * `could_not_run`, `killed`, ...): the state its `run.outcome` record states
   * (what the CLI printed), else the kernel's own `taskOutcome` of the recorded
   * transitions. Null while the task is live (or its writer crashed).
   */
  readonly verdict: FinalState | null;
  /** Last status the kernel moved the task to (`completed`, `killed`, ...), or null. */
  readonly status: string | null;
  /** Digest of the minted VerifiedPatch, if any. */
  readonly verifiedPatch: string | null;
  /** The whole output of the verified round's checks (`test_output.txt`), when the outcome names it. */
  readonly testOutput: string | null;
  /** Recorded transcript excerpts, with secret-looking values masked. */
  readonly transcripts: readonly { readonly seq: number; readonly text: string }[];
  /**
   * How the oracle rule graded the task's last verified round, in words, from
   * its recorded outcome (which test files changed, whether the base's tests
   * judged it too, per test or by exit code); empty when none was recorded.
   * The outcomes themselves are the checks above, bound to their receipts.
   */
  readonly oracle: readonly string[];
  /**
   * The task's baseline was not run but reused from the baseline cache: the
   * task whose run it was (`reusedFrom`), that run's baseline receipts in this
   * log and when it ran; null when the task ran its own baseline (or none).
   * The evidence binding checks that the reused result's receipts are that
   * task's, MAC'd under the log's key, outcomes matching.
   */
  readonly baselineReused: BaselineReuse | null;
}

/** Where a task's reused baseline came from (see {@linkcode TaskTimeline.baselineReused}). */
export interface BaselineReuse {
  /** The task whose baseline ran. */
  readonly from: string;
  /** Sequence numbers of that task's `baseline:` receipts in this log. */
  readonly receiptSeqs: readonly number[];
  /** When that baseline ran (its first receipt's start, ms since epoch), if in this log. */
  readonly ranAt: number | null;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => typeof v === "string" ? v : null;
const num = (v: unknown): number | null => typeof v === "number" ? v : null;

interface Draft {
  task: string;
  firstSeq: number;
  lastSeq: number;
  firstTs: number;
  lastTs: number;
  firstAt: number | null;
  lastAt: number | null;
  phases: PhaseChange[];
  rounds: Set<number>;
  checks: CheckLine[];
  receipts: ReceiptLine[];
  status: string | null;
  reason: string | null;
  budgetStop: string | null;
  outcome: FinalState | null;
  verifiedPatch: string | null;
  testOutput: string | null;
  transcripts: { seq: number; text: string }[];
  oracle: string[];
  reusedFrom: string | null;
  baselineStarts: number[];
}

/** The kernel's final state of the recorded transitions (null while the task is live). */
function kernelOutcome(d: Draft): FinalState | null {
  if (d.status === null) return null;
  const record = {
    status: d.status,
    reason: d.reason,
    budgetStop: d.budgetStop,
    round: 0,
    backendFaults: 0,
  } as unknown as TaskRecord;
  return taskOutcome(record)?.state ?? null;
}

/**
 * A run's last round's `test_output.txt` (`<artefactsDir>/round-N/`), named when a check of that
 * round ran (`vouch run` writes the file then; its outcome carries no path of its own).
 */
function roundOutput(artefactsDir: unknown, last: unknown): string | null {
  const dir = str(artefactsDir);
  if (dir === null || !isObj(last) || !Array.isArray(last["checks"])) return null;
  const round = num(last["round"]);
  const ran = last["checks"].some((c) => isObj(c) && num(c["exitCode"]) !== null);
  return round !== null && ran ? `${dir}/round-${round}/test_output.txt` : null;
}

function oneBased(round: number | null): number | null {
  return round === null ? null : round + 1;
}

function newDraft(task: string, r: LogRecord): Draft {
  return {
    task,
    firstSeq: r.seq,
    lastSeq: r.seq,
    firstTs: r.ts,
    lastTs: r.ts,
    firstAt: null,
    lastAt: null,
    phases: [],
    rounds: new Set(),
    checks: [],
    receipts: [],
    status: null,
    reason: null,
    budgetStop: null,
    outcome: null,
    verifiedPatch: null,
    testOutput: null,
    transcripts: [],
    oracle: [],
    reusedFrom: null,
    baselineStarts: [],
  };
}

/** The kernel event times by log sequence number, for the transitions their actions record. */
type EventTimes = Map<number, number>;

/** A kernel event: its time, and the check results of a baseline or verification result. */
function readKernelEvent(d: Draft, r: LogRecord, body: Obj, eventAt: EventTimes): void {
  const at = num(body["at"]);
  if (at !== null) {
    eventAt.set(r.seq, at);
    d.firstAt ??= at;
    d.lastAt = Math.max(d.lastAt ?? at, at);
  }
  const kind = str(body["kind"]);
  if (kind !== "baseline_result" && kind !== "verification_result") return;
  if (!Array.isArray(body["checks"])) return;
  if (kind === "baseline_result") d.reusedFrom = str(body["reusedFrom"]);
  for (const c of body["checks"]) {
    if (!isObj(c)) continue;
    d.checks.push({
      seq: r.seq,
      phase: kind === "baseline_result" ? "baseline" : "round",
      // The kernel counts rounds from 0; people (and `vouch run`'s table) from 1.
      round: kind === "baseline_result" ? null : oneBased(num(body["round"])),
      id: str(c["id"]) ?? "?",
      outcome: str(c["outcome"]) ?? "?",
    });
  }
}

/** A transition the kernel recorded: a phase change, and the task's status and budget stop. */
function readTransition(d: Draft, r: LogRecord, rec: Obj, at: number): void {
  const to = str(rec["to"]) ?? "?";
  d.phases.push({ seq: r.seq, at, from: str(rec["from"]), to, reason: str(rec["reason"]) ?? "" });
  // As the kernel keeps it: a pause's budget stays the stop until a resume clears it.
  if (to === "paused") d.budgetStop = str(rec["reason"]);
  else if (d.status === "paused" && to !== "killed") d.budgetStop = null;
  d.status = to;
  d.reason = str(rec["reason"]);
}

/**
 * The kernel's actions: the backend rounds started and the transitions
 * recorded (at the time of the event they answer, else the record's).
 */
function readKernelActions(d: Draft, r: LogRecord, actions: unknown[], at: number | null): void {
  for (const a of actions) {
    if (!isObj(a)) continue;
    if (a["kind"] === "run_backend") {
      const round = num(a["round"]);
      if (round !== null) d.rounds.add(round);
    }
    const rec = a["record"];
    if (a["kind"] === "append_log" && isObj(rec) && rec["type"] === "transition") {
      readTransition(d, r, rec, at ?? r.ts);
    }
  }
}

function readReceipt(d: Draft, r: LogRecord, body: Obj): void {
  const exit = isObj(body["exit"]) ? body["exit"] : {};
  d.receipts.push({
    seq: r.seq,
    tool: str(body["tool"]) ?? "?",
    exit: num(exit["code"]) ?? -1,
    timedOut: exit["timedOut"] === true,
    durationMs: (num(body["endedAt"]) ?? 0) - (num(body["startedAt"]) ?? 0),
    sandbox: str(body["sandboxProfile"]) ?? "?",
  });
  if (str(body["tool"])?.startsWith("baseline:")) {
    d.baselineStarts.push(num(body["startedAt"]) ?? 0);
  }
}

/** A `run.outcome` or `verify.outcome`: the final state (run), the oracle's words, the test output. */
function readOutcome(d: Draft, r: LogRecord, body: Obj): void {
  if (r.kind === "run.outcome") {
    const state = body["state"];
    if (FINAL_STATES.includes(state as FinalState)) d.outcome = state as FinalState;
  }
  const rounds = Array.isArray(body["rounds"]) ? body["rounds"] : [];
  const last: unknown = rounds.at(-1);
  const oracle = body["oracle"] ?? (isObj(last) ? last["oracle"] : null);
  const sentences = isObj(oracle) && Array.isArray(oracle["sentences"]) ? oracle["sentences"] : [];
  d.oracle = sentences.flatMap((x) => typeof x === "string" ? [x] : []);
  d.testOutput = str(body["testOutput"]) ?? roundOutput(body["artefactsDir"], last);
}

/** Adds what one record of a task says to its draft (records of unknown kinds or shapes: nothing). */
function readRecord(d: Draft, r: LogRecord, eventAt: EventTimes): void {
  const body = r.body;
  if (!isObj(body)) return;
  if (r.kind === LOG_KINDS.kernelEvent) readKernelEvent(d, r, body, eventAt);
  else if (r.kind === LOG_KINDS.kernelActions && Array.isArray(body["actions"])) {
    const forSeq = num(body["forSeq"]);
    const at = forSeq !== null ? eventAt.get(forSeq) : undefined;
    readKernelActions(d, r, body["actions"], at ?? null);
  } else if (r.kind === LOG_KINDS.toolReceipt) readReceipt(d, r, body);
  else if (r.kind === LOG_KINDS.verifiedPatchMinted) d.verifiedPatch = str(body["patchDigest"]);
  else if (r.kind === "verify.outcome" || r.kind === "run.outcome") readOutcome(d, r, body);
  else if (r.kind === LOG_KINDS.transcript) {
    const text = str(body["text"]);
    if (text !== null) d.transcripts.push({ seq: r.seq, text: redactSecrets(text).text });
  }
}

/** Where a reused baseline ran: that task's baseline receipts and their earliest start. */
function reuseOf(drafts: ReadonlyMap<string, Draft>, from: string): BaselineReuse {
  const source = drafts.get(from);
  const seqs = source?.receipts.filter((x) => x.tool.startsWith("baseline:")).map((x) => x.seq);
  return {
    from,
    receiptSeqs: seqs ?? [],
    ranAt: source !== undefined && source.baselineStarts.length > 0
      ? Math.min(...source.baselineStarts)
      : null,
  };
}

function timelineOf(d: Draft, drafts: ReadonlyMap<string, Draft>): TaskTimeline {
  return {
    task: d.task,
    firstSeq: d.firstSeq,
    lastSeq: d.lastSeq,
    durationMs: d.firstAt !== null && d.lastAt !== null
      ? d.lastAt - d.firstAt
      : d.lastTs - d.firstTs,
    phases: d.phases,
    rounds: d.rounds.size,
    checks: d.checks,
    receipts: d.receipts,
    verdict: d.outcome ?? kernelOutcome(d),
    status: d.status,
    verifiedPatch: d.verifiedPatch,
    testOutput: d.testOutput,
    transcripts: d.transcripts,
    oracle: d.oracle,
    baselineReused: d.reusedFrom === null ? null : reuseOf(drafts, d.reusedFrom),
  };
}

/**
 * Builds per-task timelines from verified log records. Reads only what it
 * recognises; unknown kinds and shapes are skipped, never trusted.
 *
 * @example
 * ```ts
 * import { buildTimelines } from "./timeline.ts";
 * if (buildTimelines([]).length !== 0) throw new Error();
 * ```
 */
export function buildTimelines(records: readonly LogRecord[]): TaskTimeline[] {
  const drafts = new Map<string, Draft>();
  const eventAt: EventTimes = new Map();
  for (const r of records) {
    if (r.task === null) continue;
    let d = drafts.get(r.task);
    if (d === undefined) drafts.set(r.task, d = newDraft(r.task, r));
    d.lastSeq = r.seq;
    d.lastTs = Math.max(d.lastTs, r.ts);
    readRecord(d, r, eventAt);
  }
  return [...drafts.values()].map((d) => timelineOf(d, drafts));
}
