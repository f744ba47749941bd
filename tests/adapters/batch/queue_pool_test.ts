/**
 * A queue worker keeps its clean trees per base between jobs (as a local
 * batch does) and removes them when it stops: a real redis-server on
 * 127.0.0.1, the worker in this process.
 */
import assert from "node:assert/strict";
import { inFlight } from "../../../adapters/batch/options.ts";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { runBatch } from "../../../adapters/batch/mod.ts";
import { readTasks } from "../../../adapters/batch/input.ts";
import { enqueueExecutor, parseQueueUrl, runQueueWorker } from "../../../adapters/batch/queue.ts";
import { makeCohort } from "./_cohort.ts";
import { loadFleetKey } from "../../../adapters/keys/fleet_key.ts";
import { redisServerPath, startRedis } from "./_redis.ts";

const redis = redisServerPath();
if (redis === null) console.log("queue pool test skipped: redis-server is not installed");

/** Linked worktrees of `repo` (its own checkout excluded). */
function linkedWorktrees(repo: string): string[] {
  const out = execFileSync("git", ["worktree", "list", "--porcelain"], { cwd: repo }).toString();
  return out.split("\n").filter((l) => l.startsWith("worktree ")).slice(1);
}

Deno.test({
  name: "queue worker: clean trees are reused per base across jobs and removed when it stops",
  ignore: redis === null,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "vouch-queue-pool-" });
    const server = startRedis(redis!);
    const stop = new AbortController();
    let worker: Promise<void> | null = null;
    try {
      const cohort = await makeCohort(dir, {
        node: 1,
        deno: 0,
        kinds: ["good", "noop", "partial", "good"],
      });
      const repo = cohort.tasks[0]!.repo;
      const keyEnv = { XDG_STATE_HOME: join(dir, "state") };
      const address = { ...parseQueueUrl(server.url), name: "pool-test" };
      const done: string[] = [];
      // Every tree this worker checks out, seen while a job runs.
      const seen = new Set<string>();
      const fleetKey = await loadFleetKey({ env: keyEnv, create: true });
      worker = runQueueWorker(address, {
        tasks: (await readTasks(cohort.tasksFile)).tasks,
        fleetKey,
        outDir: join(dir, "w"),
        keyEnv,
        worktreeRoot: join(dir, "worktrees"),
        signal: stop.signal,
        onJob: (e) => {
          for (const t of linkedWorktrees(repo)) seen.add(t);
          if (e.kind === "done") done.push(e.key);
        },
      });
      const { report } = await runBatch({
        tasks: cohort.tasksFile,
        predictions: cohort.predictionsFile,
        outDir: join(dir, "out"),
        keyEnv,
        executor: enqueueExecutor(address, { fleetKey, pollMs: 50 }),
      });
      assert.equal(report.resolved_instances, 2);
      assert.equal(done.length, 4);
      // One tree per job in flight (one check slot, inFlight(1) jobs) served the task's
      // baseline and all four candidates: no checkout per job ...
      assert.ok(seen.size <= inFlight(1), [...seen].join("\n"));
      // ... and they are kept between jobs until the worker stops.
      const kept = linkedWorktrees(repo).length;
      assert.ok(kept >= 1 && kept <= inFlight(1), `${kept} trees kept`);
      stop.abort();
      await worker;
      worker = null;
      assert.deepEqual(linkedWorktrees(repo), []);
    } finally {
      stop.abort();
      await worker?.catch(() => {});
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
