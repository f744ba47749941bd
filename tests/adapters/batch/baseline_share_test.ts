/**
 * Candidates of one task share one baseline run (issue 19, item 5, in batch
 * and the fleet worker): a task without test lists runs its base once, sealed
 * as a baseline-cache entry, and every candidate's verification reuses it
 * (`reusedFrom` in its log) instead of running the base again. Counted with a
 * real counter: the check appends one line per run, telling a baseline run
 * (base tree) from a grading (a candidate's tree). A tampered entry is never
 * trusted: the candidate runs its own baseline.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runBatch } from "../../../adapters/batch/mod.ts";
import { readTasks } from "../../../adapters/batch/input.ts";
import { verifyCandidate } from "../../../adapters/batch/verify_candidate.ts";
import { prepareTask } from "../../../adapters/batch/prepare.ts";
import { readLogFile } from "../../../adapters/log/mod.ts";
import { checkEvidenceBinding } from "../../../adapters/audit/evidence_binding.ts";
import { inspectLog } from "../../../adapters/audit/mod.ts";
import { loadOrCreateMacKey } from "../../../adapters/keys/mod.ts";
import { renderInspectReport } from "../../../cli/commands/inspect.ts";
import { git, writeFiles } from "../../golden/fixture_repos.ts";
import { enqueueExecutor, parseQueueUrl, runQueueWorker } from "../../../adapters/batch/queue.ts";
import { loadFleetKey } from "../../../adapters/keys/fleet_key.ts";
import { redisServerPath, startRedis } from "./_redis.ts";

const SRC = (add: string, note = "") =>
  `exports.add = (a, b) => ${add};\nexports.sub = (a, b) => a - b;\n${note}`;
const TESTS = `const test = require("node:test");\nconst assert = require("node:assert");\n` +
  `const c = require("../calc.js");\n` +
  `test("subtracts", () => { assert.equal(c.sub(5, 3), 2); });\n`;
const SPEC = `const test = require("node:test");\nconst assert = require("node:assert");\n` +
  `const c = require("../calc.js");\ntest("adds", () => { assert.equal(c.add(2, 3), 5); });\n`;

async function diffOf(repo: string, files: Record<string, string>): Promise<string> {
  await writeFiles(repo, files);
  await git(repo, "add", "-A");
  const diff = await git(repo, "diff", "--cached", "--binary", "HEAD");
  await git(repo, "reset", "-q", "--hard", "HEAD");
  return diff;
}

/** A node:test repository, a task without test lists (derived from the baseline) and 4 candidates. */
async function fixture(dir: string) {
  const repo = join(dir, "repo");
  const counter = join(dir, "runs.txt");
  await Deno.mkdir(repo, { recursive: true });
  await git(repo, "init", "-q", "-b", "main");
  await writeFiles(repo, {
    "package.json": '{ "name": "calc", "private": true }\n',
    "calc.js": SRC("a - b"),
    "test/calc.test.js": TESTS,
  });
  await git(repo, "add", "-A");
  await git(repo, "commit", "-q", "-m", "calc with a bug in add");
  const base = (await git(repo, "rev-parse", "HEAD")).trim();
  const testPatch = await diffOf(repo, { "test/add.test.js": SPEC });
  // One line per run of the check: `grade` in a candidate's tree (its patch marks calc.js).
  const command =
    `if grep -q candidate calc.js; then echo grade >> ${counter}; else echo base >> ${counter}; fi; node --test`;
  const tasks = join(dir, "tasks.jsonl");
  await Deno.writeTextFile(
    tasks,
    JSON.stringify({
      id: "calc",
      repo: "repo",
      base,
      verify: { command, tests: "node" },
      testPatch,
    }) +
      "\n",
  );
  const models = {
    "good-1": SRC("a + b", "// candidate 1\n"),
    "good-2": SRC("b + a", "// candidate 2\n"),
    "noop": SRC("a - b", "// candidate 3\n"),
    "breaks-sub": SRC("a + b", "exports.sub = () => 0;\n// candidate 4\n"),
  };
  const predictions = [];
  for (const [model, text] of Object.entries(models)) {
    predictions.push({
      instance_id: "calc",
      model_name_or_path: model,
      model_patch: await diffOf(repo, { "calc.js": text }),
    });
  }
  const predictionsFile = join(dir, "predictions.json");
  await Deno.writeTextFile(predictionsFile, JSON.stringify(predictions));
  const runs = async () => {
    const text = await Deno.readTextFile(counter).catch(() => "");
    const lines = text.split("\n").filter((l) => l !== "");
    return {
      base: lines.filter((l) => l === "base").length,
      grade: lines.filter((l) => l === "grade").length,
    };
  };
  return { repo, tasks, predictionsFile, counter, runs, models };
}

/** The baseline_result kernel events of a candidate's log, and its evidence binding. */
async function baselineEvents(path: string) {
  const log = await readLogFile(path);
  assert.equal(log.status, "ok", path);
  const events = log.records.filter((r) =>
    r.kind === "kernel.event" && (r.body as { kind?: string }).kind === "baseline_result"
  ).map((r) => r.body as { taskId: string; reusedFrom?: string });
  return { events, binding: checkEvidenceBinding(log.records) };
}

Deno.test("vouch batch: 4 candidates of a task without lists run its baseline once", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vouch-batch-share-" });
  try {
    const f = await fixture(dir);
    const out = join(dir, "out");
    const { report } = await runBatch({
      tasks: f.tasks,
      predictions: f.predictionsFile,
      outDir: out,
      concurrency: 2,
      sandbox: "none",
      keyEnv: { XDG_STATE_HOME: join(dir, "state") },
    });
    const verdicts = Object.fromEntries(
      report.candidates.map((c) => [c.model_name_or_path, [c.status, c.reason]]),
    );
    assert.deepEqual(verdicts, {
      "good-1": ["resolved", "verified"],
      "good-2": ["resolved", "verified"],
      "noop": ["unresolved", "failed_tests"],
      "breaks-sub": ["unresolved", "failed_tests"],
    });
    // What vouch verify says of each (the verdict table's key), recorded with the class.
    assert.deepEqual(
      Object.fromEntries(report.candidates.map((c) => [c.model_name_or_path, c.verdict])),
      { "good-1": "verified", "good-2": "verified", "noop": "rejected", "breaks-sub": "rejected" },
    );
    // Measured: one baseline run for the task (not 4), one grading per candidate.
    assert.deepEqual(await f.runs(), { base: 1, grade: 4 });
    const tasks = new Set<string>();
    for (const c of report.candidates) {
      const { events, binding } = await baselineEvents(join(out, c.artefacts.log!));
      assert.equal(events.length, 1, c.model_name_or_path);
      assert.ok(events[0]!.reusedFrom !== undefined, `${c.model_name_or_path} reused no baseline`);
      tasks.add(events[0]!.reusedFrom!);
      // The reused receipts are in the candidate's own log, of the task reusedFrom names.
      assert.equal(binding.issue, null, JSON.stringify(binding.issue));
      assert.equal(c.baseline_reused_from, events[0]!.reusedFrom);
    }
    assert.equal(tasks.size, 1, "every candidate reused the one baseline run");

    // `vouch inspect` of a candidate's log: VERIFIED, and says whose baseline run it reused,
    // where its receipts are, and that they bind.
    const key = await loadOrCreateMacKey({
      repoRoot: f.repo,
      env: { XDG_STATE_HOME: join(dir, "state") },
      create: false,
    });
    const good = report.candidates.find((c) => c.model_name_or_path === "good-1")!;
    const audit = await inspectLog(join(out, good.artefacts.log!), { key });
    assert.equal(audit.verdict, "verified");
    const text = renderInspectReport(audit, key.keyId);
    assert.match(
      text,
      new RegExp(
        `baseline  reused, not run again: task ${good.baseline_reused_from}'s baseline run at \\d{4}-\\d\\d-\\d\\dT[^ ]+ \\(receipts seq 1\\); they bind: MACs verify`,
      ),
    );
    const unkeyed = renderInspectReport(
      await inspectLog(join(out, good.artefacts.log!), { key: null }),
      null,
    );
    assert.match(unkeyed, /baseline {2}reused, not run again: .*UNCHECKED: no key/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a tampered baseline-cache entry is not trusted: the candidate runs its own baseline", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vouch-batch-share-tamper-" });
  try {
    const f = await fixture(dir);
    const out = join(dir, "out");
    const opts = {
      outDir: out,
      sandbox: "none",
      keyEnv: { XDG_STATE_HOME: join(dir, "state") },
    } as const;
    const [task] = (await readTasks(f.tasks)).tasks;
    const prepared = await prepareTask(task!, opts);
    assert.ok(prepared.baselineSeed !== null);
    assert.deepEqual(await f.runs(), { base: 1, grade: 0 });
    const cacheDir = join(prepared.baselineSeed, "baseline-cache");
    const [name] = [...Deno.readDirSync(cacheDir)].map((e) => e.name);
    const path = join(cacheDir, name!);
    const honest = await Deno.readTextFile(path);
    const patches = JSON.parse(await Deno.readTextFile(f.predictionsFile)) as {
      model_name_or_path: string;
      model_patch: string;
    }[];
    const noop = patches.find((p) => p.model_name_or_path === "noop")!.model_patch;
    const good = patches.find((p) => p.model_name_or_path === "good-1")!.model_patch;

    // Forged: the entry says the base's suite already passed (nothing fails at the base), with
    // the MAC left as it was. Trusted, the no-op would have nothing to fix.
    const sealed = JSON.parse(honest);
    sealed.entry.run.summaries = sealed.entry.run.summaries.map((s: Record<string, unknown>) => ({
      ...s,
      passed: true,
    }));
    sealed.entry.reports = [];
    await Deno.writeTextFile(path, JSON.stringify(sealed));
    const forged = await verifyCandidate(prepared, noop, opts);
    assert.deepEqual([forged.status, forged.reason], ["unresolved", "failed_tests"]);
    assert.equal(forged.baseline_reused_from ?? null, null);
    assert.deepEqual(await f.runs(), { base: 2, grade: 1 }, "the candidate ran its own baseline");
    const own = await baselineEvents(join(out, forged.artefacts.log!));
    assert.equal(own.events.at(-1)!.reusedFrom, undefined);
    assert.equal(own.binding.issue, null);

    // Re-sealed under another key: a miss too.
    sealed.entry = JSON.parse(honest).entry;
    sealed.mac = "0".repeat(64);
    await Deno.writeTextFile(path, JSON.stringify(sealed));
    const rekeyed = await verifyCandidate(prepared, good, opts);
    assert.deepEqual([rekeyed.status, rekeyed.reason], ["resolved", "verified"]);
    assert.deepEqual(await f.runs(), { base: 3, grade: 2 });

    // The honest entry, but the seeded log lacks the receipts it cites: a miss, never trusted.
    await Deno.writeTextFile(path, honest);
    const logPath = join(prepared.baselineSeed, "events.jsonl");
    const seededLog = await Deno.readTextFile(logPath);
    await Deno.writeTextFile(logPath, "");
    const empty = await verifyCandidate(prepared, good, opts);
    assert.deepEqual([empty.status, empty.reason], ["resolved", "verified"]);
    assert.equal(empty.baseline_reused_from ?? null, null);
    assert.deepEqual(await f.runs(), { base: 4, grade: 3 });

    // A seeded log whose receipt line was cut out (its hash chain broken): fails closed, the
    // cut receipt is never reused (the verification cannot run on that log).
    const lines = seededLog.split("\n").filter((l) => l !== "");
    await Deno.writeTextFile(
      logPath,
      lines.filter((l) => !l.includes('"tool.receipt"')).join("\n") + "\n",
    );
    const cut = await verifyCandidate(prepared, good, opts);
    assert.equal(cut.baseline_reused_from ?? null, null);
    assert.deepEqual([cut.status, cut.reason], ["error", "could_not_run"], cut.detail);

    // The honest seed: reused (the one baseline run so far per seeding, no new base run).
    await Deno.writeTextFile(logPath, seededLog);
    const reused = await verifyCandidate(prepared, good, opts);
    assert.deepEqual([reused.status, reused.reason], ["resolved", "verified"]);
    assert.ok(reused.baseline_reused_from !== undefined);
    assert.deepEqual((await f.runs()).base, 4);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const redis = redisServerPath();

Deno.test({
  name: "vouch worker (fleet): the candidates of a task it judges share its one baseline run",
  ignore: redis === null,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "vouch-worker-share-" });
    const server = startRedis(redis!);
    const stop = new AbortController();
    let worker: Promise<void> | null = null;
    try {
      const f = await fixture(dir);
      const keyEnv = { XDG_STATE_HOME: join(dir, "state") };
      const address = { ...parseQueueUrl(server.url), name: "share-test" };
      const fleetKey = await loadFleetKey({ env: keyEnv, create: true });
      const reused: (string | undefined)[] = [];
      worker = runQueueWorker(address, {
        tasks: (await readTasks(f.tasks)).tasks,
        fleetKey,
        outDir: join(dir, "w"),
        keyEnv,
        sandbox: "none",
        signal: stop.signal,
        onJob: (e) => {
          if (e.kind === "done") reused.push(e.verdict?.baseline_reused_from);
        },
      });
      const { report } = await runBatch({
        tasks: f.tasks,
        predictions: f.predictionsFile,
        outDir: join(dir, "out"),
        keyEnv,
        sandbox: "none",
        executor: enqueueExecutor(address, { fleetKey, pollMs: 50 }),
      });
      assert.equal(report.resolved_instances, 2);
      assert.equal(reused.length, 4);
      // Measured: the worker ran the task's base once for its 4 jobs.
      assert.deepEqual(await f.runs(), { base: 1, grade: 4 });
      assert.equal(new Set(reused).size, 1);
      assert.ok(reused[0] !== undefined);
      for (const c of report.candidates) assert.equal(c.baseline_reused_from, reused[0]);
    } finally {
      stop.abort();
      await worker?.catch(() => {});
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
