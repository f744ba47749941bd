/**
 * Preparing a task once for all its candidates: its base resolved, its test
 * patch committed as a protected spec, and (when its contract has test lists)
 * the base judged once by the same clean verifier `verifyPatchInRepo` runs its
 * baseline with, so candidates then verify with `baseline: false`. Any other
 * task (no test lists, or capture and differential checks that need the
 * base's captures) still runs its base once: the run seals a baseline-cache
 * entry (the MAC'd cache `vouch verify` uses) in the task's state directory,
 * each candidate's state starts as a copy of it (log and entry), and the
 * candidate's verification then reuses that baseline (`reusedFrom`) instead of
 * running it; an entry that does not verify is a miss, and the candidate runs
 * its own baseline.
 *
 * @module
 */
import { mkdir, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { ListedTestStatus, OutcomeContract } from "../../kernel/contract/types.ts";
import { isVouchError } from "../../kernel/errors/mod.ts";
import { resolveCommit } from "../git/locate_repo.ts";
import { gitChecked } from "../git/git_checked.ts";
import { EventLog } from "../log/store.ts";
import { ReceiptRecorder } from "../receipts/chain.ts";
import { createCleanVerifier } from "../verification/clean_verifier.ts";
import { newTaskId } from "../driver/task_defaults.ts";
import { loadOrCreateMacKey } from "../keys/mac_key.ts";
import { type Classification, classifyOutcome } from "./classify.ts";
import type { BatchTask } from "./input.ts";
import { taskDirName } from "./key.ts";
import { errorMessage, type SharedCandidateOptions, verificationOptions } from "./options.ts";
import { commitSpec } from "./spec_base.ts";

/** A task made ready once: resolved base, spec commit, contract and shared baseline. */
export interface PreparedTask {
  readonly task: BatchTask;
  /** The resolved base commit (before the test patch). */
  readonly base: string;
  /** The commit candidates apply to (base + test patch). */
  readonly applyTo: string;
  /** The contract with the test patch's paths protected. */
  readonly contract: OutcomeContract;
  /** Listed tests' status on the base (`check\0test` keys), when shared. */
  readonly before: ReadonlyMap<string, ListedTestStatus> | null;
  /** Set when no candidate of the task can be judged (invalid contract, base cannot run). */
  readonly invalid: (Classification & { readonly reasons: readonly string[] }) | null;
  /**
   * The task's state directory when its baseline ran once and sealed a
   * baseline-cache entry there (`events.jsonl`, `baseline-cache/`): each
   * candidate's state starts as a copy, so its verification reuses the run.
   */
  readonly baselineSeed: string | null;
}

const hasLists = (c: OutcomeContract) => c.checks.some((k) => k.testLists !== undefined);
const needsOwnBaseline = (c: OutcomeContract) =>
  c.checks.some((k) => k.baseline || k.differential !== null);

/**
 * Resolves a task's base, commits its test patch and, when its contract has
 * test lists, judges the base once (contract validity and every listed test's
 * before-status). Never throws: a task that cannot be prepared is `invalid`.
 *
 * @example A task whose failToPass test already passes is invalid
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
 * import { execFileSync } from "node:child_process";
 * import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { resolveTask } from "./input.ts";
 * import { prepareTask } from "./prepare.ts";
 *
 * const dir = mkdtempSync(join(tmpdir(), "vouch-prepare-example-"));
 * const git = (...args: string[]) => execFileSync("git", args, { cwd: dir });
 * git("init", "-q");
 * git("config", "user.email", "e@example.invalid");
 * git("config", "user.name", "e");
 * writeFileSync(join(dir, "a.txt"), "a\n");
 * git("add", ".");
 * git("commit", "-qm", "init");
 * // A "suite" in cargo's format in which test `t` already passes on the base.
 * const command = "echo 'test t ... ok'; echo 'test result: ok. 1 passed; 0 failed;'";
 * const task = resolveTask(
 *   { id: "t", repo: ".", base: "HEAD", verify: { command, tests: "cargo", failToPass: ["t"] } },
 *   dir,
 *   "example",
 * );
 * const opts = { outDir: join(dir, ".out"), sandbox: "none", keyEnv: { VOUCH_KEY_FILE: join(tmpdir(), `vouch-ex-${Date.now()}.key`) } } as const;
 * const prepared = await prepareTask(task, opts);
 * equal(prepared.invalid?.reason, "contract_invalid");
 * deepEqual(prepared.invalid?.reasons, ["baseline_fail_to_pass_passes"]);
 * equal(prepared.before?.get("tests\0t"), "passed");
 * rmSync(dir, { recursive: true, force: true });
 * rmSync(opts.keyEnv.VOUCH_KEY_FILE, { force: true });
 * ```
 */
export async function prepareTask(
  task: BatchTask,
  opts: SharedCandidateOptions,
): Promise<PreparedTask> {
  let base = task.base;
  try {
    base = await resolveCommit(task.repo, task.base);
    const spec = await commitSpec(task.repo, base, task.testPatch);
    const contract = { ...task.contract, protect: [...task.contract.protect, ...spec.protect] };
    const prepared = {
      task,
      base,
      applyTo: spec.commit,
      contract,
      before: null,
      invalid: null,
      baselineSeed: null,
    };
    if (!hasLists(contract) || needsOwnBaseline(contract)) {
      // The base run once for every candidate, through the baseline cache (never with a
      // networked setup, which the cache does not keep). Its verdict is the candidates' to
      // judge, as their own baselines' would be: only the entry is kept.
      if (contract.setup?.network === "allow") return prepared;
      const seeded = await judgeBase(task, spec.commit, contract, opts, true);
      return { ...prepared, baselineSeed: seeded.seed };
    }
    const judged = await judgeBase(task, spec.commit, contract, opts, false);
    if (judged.reasons.length > 0) {
      const c = classifyOutcome({
        verdict: "rejected",
        reasons: judged.reasons,
        violations: [],
        checks: [],
      });
      // Say why on screen too: the checks' own sentences (a path the sandbox hides and the
      // --sandbox-ro that shows it, a command that cannot start) and listed tests the output lacks.
      const detail = judged.details.length > 0
        ? `${c.detail}: ${judged.details.join("; ")}`
        : c.detail;
      return {
        ...prepared,
        before: judged.before,
        invalid: { ...c, detail, reasons: judged.reasons },
      };
    }
    return { ...prepared, before: judged.before };
  } catch (error) {
    return {
      task,
      base,
      applyTo: base,
      contract: task.contract,
      before: null,
      baselineSeed: null,
      invalid: {
        status: "error",
        reason: "could_not_run",
        detail: `cannot prepare task ${task.id}: ${errorMessage(error)}`,
        reasons: [isVouchError(error) ? error.code : "prepare_failed"],
      },
    };
  }
}

/**
 * What to say when listed tests are missing from a check's output on the base:
 * most often the reporter prints only failures and counts (mocha `dot`,
 * pytest `-q`), so passing tests have no id to find.
 *
 * @example
 * ```ts
 * import { match } from "node:assert/strict";
 * import { missingTestsHint } from "./prepare.ts";
 * match(missingTestsHint("tests", ["a", "b"]), /2 listed test\(s\) missing from "tests"/);
 * ```
 */
export function missingTestsHint(check: string, missing: readonly string[]): string {
  const shown = missing.slice(0, 3).join(", ") + (missing.length > 3 ? ", ..." : "");
  return `${missing.length} listed test(s) missing from "${check}"'s output on the base (${shown}): ` +
    "the reporter may hide passing tests' ids (mocha's dot, pytest -q); use one that names " +
    "every test (mocha --reporter spec or tap, pytest -rA or -v, node --test) or a structured report";
}

/**
 * The task's base judged once, by the same clean verifier `verifyPatchInRepo`
 * runs its baseline with (fresh tree, sandbox, MAC'd receipts in
 * `tasks/<dir>/events.jsonl`): every listed test's status before any change,
 * and the reasons no candidate can be judged (an invalid contract, a base that
 * cannot run). With `cache`, the run is also sealed as a baseline-cache entry
 * of that directory (`seed`: the directory, when an entry was written).
 */
async function judgeBase(
  task: BatchTask,
  applyTo: string,
  contract: OutcomeContract,
  opts: SharedCandidateOptions,
  cache: boolean,
): Promise<
  {
    before: Map<string, ListedTestStatus>;
    reasons: string[];
    details: string[];
    seed: string | null;
  }
> {
  const stateDir = join(opts.outDir, "tasks", taskDirName(task, applyTo));
  await rm(stateDir, { recursive: true, force: true });
  await mkdir(stateDir, { recursive: true });
  const top = (await gitChecked(["rev-parse", "--show-toplevel"], { cwd: task.repo })).stdout.head
    .trim();
  const key = await loadOrCreateMacKey({
    repoRoot: top,
    ...(opts.keyEnv !== undefined ? { env: opts.keyEnv } : {}),
  });
  const log = await EventLog.open(join(stateDir, "events.jsonl"));
  try {
    const taskId = newTaskId();
    // The candidates' sandbox and tree options; the key is loaded above, and whether tests
    // are editable judges a patch, not the baseline.
    const { keyEnv: _key, testsEditable: _editable, treePool, ...shared } = verificationOptions(
      opts,
    );
    const verifier = createCleanVerifier({
      repo: top,
      base: applyTo,
      taskId,
      contract,
      receipts: ReceiptRecorder.resume(log, key, log.openReport.lastReceipt),
      ...shared,
      ...(treePool !== undefined ? { pool: treePool } : {}),
      ...(cache
        ? { baselineCache: { dir: join(stateDir, "baseline-cache"), key, logPath: log.path } }
        : {}),
    });
    const b = await verifier.baseline(new AbortController().signal, () => {});
    await verifier.settle();
    const reasons = [...(b.ran ? [] : ["baseline_cannot_run"]), ...b.diagnostics, ...b.refusals];
    const before = new Map<string, ListedTestStatus>();
    for (const s of b.summaries) {
      for (const t of s.tests ?? []) before.set(`${s.name}\0${t.id}`, t.status);
    }
    const details = [
      ...new Set(
        b.summaries.filter((s) => !s.passed && s.detail !== undefined).map((s) => s.detail!),
      ),
    ];
    for (const s of b.summaries) {
      const missing = (s.tests ?? []).filter((t) => t.status === "missing").map((t) => t.id);
      if (missing.length > 0) details.push(missingTestsHint(s.name, missing));
    }
    await log.append({
      task: taskId,
      kind: "batch.task_baseline",
      body: JSON.parse(
        JSON.stringify({ task: task.id, base: applyTo, reasons, summaries: b.summaries }),
      ),
    });
    const entries = cache ? await readdir(join(stateDir, "baseline-cache")).catch(() => []) : [];
    return { before, reasons, details, seed: entries.length > 0 ? stateDir : null };
  } finally {
    await log.close();
  }
}
