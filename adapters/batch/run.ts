/**
 * `vouch batch` as a library: read the tasks and predictions, plan and shard
 * the candidates, skip those already judged (resume), judge the rest N at a
 * time (or hand them to another executor, e.g. a queue), and write the JSON,
 * Markdown and JUnit reports.
 *
 * @module
 */
import { availableParallelism } from "node:os";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { sha256Hex } from "../digest/sha256.ts";
import { resolveCommit } from "../git/locate_repo.ts";
import { type BatchTask, readPredictions, readTasks, type SwebenchDefaults } from "./input.ts";
import { candidateKey } from "./key.ts";
import { reapDeadTrees } from "./reap.ts";
import { type Executor, localExecutor, type WorkItem } from "./local_executor.ts";
import type { VerifyCandidateOptions } from "./options.ts";
import { inShard, planCandidates, type PlannedCandidate, type Shard } from "./plan.ts";
import { buildReport } from "./report.ts";
import { reportJunit, reportMarkdown } from "./render.ts";
import type { BatchReport, CandidateRecord, CandidateStatus, KeyVerdict } from "./schema.ts";
import { VerdictStore } from "./store.ts";
import { sealReport } from "./fleet_seal.ts";
import { loadFleetKey } from "../keys/fleet_key.ts";
import type { MacKey } from "../keys/mac_key.ts";

/** Progress of a batch. */
export type BatchEvent =
  | { readonly kind: "planned"; readonly total: number; readonly cached: number }
  | {
    readonly kind: "judged";
    readonly records: readonly CandidateRecord[];
    readonly done: number;
    readonly total: number;
    readonly counts: Readonly<Record<CandidateStatus, number>>;
  };

/** Options of {@linkcode runBatch}. */
export interface BatchOptions extends VerifyCandidateOptions {
  /** The tasks file (JSONL). */
  readonly tasks: string;
  /** The predictions file (SWE-bench format). */
  readonly predictions: string;
  /** Verifications at a time. @default the number of cores */
  readonly concurrency?: number;
  /** Only this slice. */
  readonly shard?: Shard | null;
  /** SWE-bench dataset rows: where their clones live (`--repos`) and their test command. */
  readonly swebench?: SwebenchDefaults;
  /** Judge again even what the store holds. @default false */
  readonly fresh?: boolean;
  /** Progress. */
  readonly onEvent?: (event: BatchEvent) => void;
  /** Where verifications run (default: locally, `concurrency` at a time). */
  readonly executor?: Executor;
  /**
   * The fleet key that seals the stored verdicts and the report (`seal`, which
   * `vouch batch merge` checks). @default the key store's fleet key (`loadFleetKey`, created when missing)
   */
  readonly fleetKey?: MacKey;
}

/** What {@linkcode runBatch} returns. */
export interface BatchResult {
  /** The report (also written as `report.json`). */
  readonly report: BatchReport;
  /** Paths of the written reports. */
  readonly files: { readonly json: string; readonly markdown: string; readonly junit: string };
}

function record(c: PlannedCandidate, v: KeyVerdict): CandidateRecord {
  return { id: c.id, instance_id: c.instance_id, model_name_or_path: c.model_name_or_path, ...v };
}

/** The verdict of a prediction whose instance has no task. */
function unknownTask(c: PlannedCandidate): CandidateRecord {
  const patchDigest = sha256Hex(c.patch);
  return record(c, {
    key: candidateKey(`unknown:${c.instance_id}`, "", patchDigest),
    patch_digest: patchDigest,
    base: "",
    status: "error",
    reason: "unknown_task",
    reasons: ["unknown_task"],
    detail: `no task has id ${c.instance_id}`,
    tests: [],
    artefacts: { dir: null, log: null, verified_patch: null, attestation: null },
  });
}

/**
 * The settings of a batch that change how a candidate is judged, as one string (empty: the
 * defaults, whose resume keys are the task's own): `tests-editable`, `sandbox:none` of a local batch (a verdict
 * judged without the sandbox is never reused by a sandboxed run, nor the other way). Not
 * `--sandbox-ro`: a path made visible only lets a check that could not run run (docs/batch.md:
 * rerun those with `--fresh`).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { judgingSettings } from "./run.ts";
 * equal(judgingSettings({}), "");
 * equal(judgingSettings({ testsEditable: true }), "tests-editable");
 * equal(judgingSettings({ testsEditable: true, sandbox: "none" }), "tests-editable\0sandbox:none");
 * ```
 */
export function judgingSettings(
  opts: Pick<BatchOptions, "testsEditable" | "sandbox">,
): string {
  return [
    ...(opts.testsEditable === true ? ["tests-editable"] : []),
    ...(opts.sandbox === "none" ? ["sandbox:none"] : []),
  ].join("\0");
}

/**
 * Runs a batch and writes `report.json`, `report.md` and `junit.xml` to `outDir`.
 *
 * @example Grade two predictions for one task
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { execFileSync } from "node:child_process";
 * import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { runBatch } from "./run.ts";
 *
 * const dir = mkdtempSync(join(tmpdir(), "vouch-batch-example-"));
 * const repo = join(dir, "repo");
 * const git = (...args: string[]) => execFileSync("git", args, { cwd: repo });
 * execFileSync("git", ["init", "-q", repo]);
 * git("config", "user.email", "e@example.invalid");
 * git("config", "user.name", "e");
 * writeFileSync(join(repo, "answer.txt"), "41\n");
 * git("add", ".");
 * git("commit", "-qm", "init");
 * const patch = (n: number) =>
 *   `diff --git a/answer.txt b/answer.txt\n--- a/answer.txt\n+++ b/answer.txt\n@@ -1 +1 @@\n-41\n+${n}\n`;
 * writeFileSync(
 *   join(dir, "tasks.jsonl"),
 *   JSON.stringify({ id: "answer", repo: "repo", base: "HEAD", verify: { command: "grep -qx 42 answer.txt" } }) + "\n",
 * );
 * writeFileSync(join(dir, "preds.json"), JSON.stringify([
 *   { instance_id: "answer", model_name_or_path: "right", model_patch: patch(42) },
 *   { instance_id: "answer", model_name_or_path: "wrong", model_patch: patch(43) },
 * ]));
 * const { report } = await runBatch({
 *   tasks: join(dir, "tasks.jsonl"),
 *   predictions: join(dir, "preds.json"),
 *   outDir: join(dir, "out"),
 *   sandbox: "none",
 *   keyEnv: { XDG_STATE_HOME: join(dir, "state") },
 * });
 * deepEqual(report.resolved_ids, ["answer@right"]);
 * deepEqual(report.unresolved_ids, ["answer@wrong"]);
 * rmSync(dir, { recursive: true, force: true });
 * ```
 */
export async function runBatch(opts: BatchOptions): Promise<BatchResult> {
  const outDir = resolve(opts.outDir);
  const candidateOpts: VerifyCandidateOptions = { ...opts, outDir };
  const read = await readTasks(opts.tasks, opts.swebench ?? {});
  // Settings that judge differently (editable tests, no sandbox) are part of every candidate's
  // resume key: a verdict judged under others is never reused.
  // A queue's workers judge with their own settings (and find tasks by their own digests).
  const judging = judgingSettings({
    ...(opts.testsEditable !== undefined ? { testsEditable: opts.testsEditable } : {}),
    ...(opts.executor === undefined && opts.sandbox !== undefined ? { sandbox: opts.sandbox } : {}),
  });
  const tasks = judging.length === 0 ? read : {
    ...read,
    tasks: read.tasks.map((t) => ({ ...t, digest: sha256Hex(`${t.digest}\0${judging}`) })),
  };
  const predictions = await readPredictions(opts.predictions);
  const planned = planCandidates(tasks.tasks, predictions.predictions);
  const predicted = new Set(planned.map((c) => c.instance_id));
  const input: BatchReport["input"] = {
    tasks: tasks.digest,
    predictions: predictions.digest,
    task_ids: tasks.tasks.map((t) => t.id).sort(),
    candidate_ids: planned.map((c) => c.id),
    unpredicted_task_ids: tasks.tasks.map((t) => t.id).filter((id) => !predicted.has(id)).sort(),
  };
  const mine = inShard(planned, opts.shard ?? null);
  // What a killed batch or worker left (its trees, still registered) goes before any new tree.
  await reapDeadTrees(tasks.tasks.map((t) => t.repo), opts.worktreeRoot);
  const bases = new Map<string, Promise<string>>();
  const baseOf = (t: BatchTask) => {
    let p = bases.get(t.id);
    if (p === undefined) bases.set(t.id, p = resolveCommit(t.repo, t.base).catch(() => t.base));
    return p;
  };
  const records: CandidateRecord[] = [];
  const items = new Map<string, WorkItem & { candidates: PlannedCandidate[] }>();
  for (const c of mine) {
    if (c.task === null) {
      records.push(unknownTask(c));
      continue;
    }
    const key = candidateKey(c.task.digest, await baseOf(c.task), sha256Hex(c.patch));
    const item = items.get(key) ?? { key, task: c.task, patch: c.patch, candidates: [] };
    item.candidates.push(c);
    items.set(key, item);
  }
  const fleetKey = opts.fleetKey ??
    await loadFleetKey({
      create: true,
      ...(opts.keyEnv !== undefined ? { env: opts.keyEnv } : {}),
    });
  const store = new VerdictStore(outDir, fleetKey);
  const todo: WorkItem[] = [];
  let cached = 0;
  for (const item of items.values()) {
    const stored = opts.fresh ? null : await store.get(item.key);
    if (stored === null) todo.push(item);
    else {
      records.push(...item.candidates.map((c) => record(c, stored)));
      cached += item.candidates.length;
    }
  }
  const total = mine.length;
  // Already judged: verdicts from the store only (a prediction without a task is not one).
  opts.onEvent?.({ kind: "planned", total, cached });
  const counts: Record<CandidateStatus, number> = {
    resolved: 0,
    unresolved: 0,
    error: 0,
    empty_patch: 0,
  };
  for (const r of records) counts[r.status]++;
  // A prediction without a task is judged already (an error): shown like every other verdict.
  const unknown = records.filter((r) => r.reason === "unknown_task");
  if (unknown.length > 0) {
    opts.onEvent?.({
      kind: "judged",
      records: unknown,
      done: records.length,
      total,
      counts: { ...counts },
    });
  }
  const executor = opts.executor ??
    localExecutor(candidateOpts, opts.concurrency ?? availableParallelism());
  await mkdir(outDir, { recursive: true });
  const seen = new Set<string>();
  await executor(todo, async (item, verdict) => {
    if (seen.has(item.key)) return; // exactly one verdict per key
    seen.add(item.key);
    // A queue's failure is not authenticated (Redis says so): reported, never kept for resume.
    if (!verdict.reasons.includes("worker_failed")) await store.put(verdict);
    const judged = item.candidates.map((c) => record(c, verdict));
    records.push(...judged);
    for (const r of judged) counts[r.status]++;
    opts.onEvent?.({
      kind: "judged",
      records: judged,
      done: records.length,
      total,
      counts: { ...counts },
    });
  });
  const report = await sealReport(buildReport(input, records, opts.shard ?? null), fleetKey);
  return { report, files: await writeReports(outDir, report) };
}

/**
 * Writes `report.json`, `report.md` and `junit.xml` (each atomically).
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdtempSync, readFileSync } from "node:fs";
 * import { ok } from "node:assert/strict";
 * import { buildReport } from "./report.ts";
 * import { writeReports } from "./run.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-"));
 * const input = { tasks: "t", predictions: "p", task_ids: [], candidate_ids: [], unpredicted_task_ids: [] };
 * const files = await writeReports(dir, buildReport(input, [], null));
 * ok(readFileSync(files.junit, "utf8").includes("<testsuites"));
 * ```
 */
export async function writeReports(
  outDir: string,
  report: BatchReport,
): Promise<BatchResult["files"]> {
  await mkdir(outDir, { recursive: true });
  const files = {
    json: join(outDir, "report.json"),
    markdown: join(outDir, "report.md"),
    junit: join(outDir, "junit.xml"),
  };
  const write = async (path: string, text: string) => {
    const tmp = `${path}.${crypto.randomUUID()}.tmp`;
    await writeFile(tmp, text);
    await rename(tmp, path);
  };
  await write(files.json, JSON.stringify(report, null, 2) + "\n");
  await write(files.markdown, reportMarkdown(report));
  await write(files.junit, reportJunit(report));
  return files;
}
