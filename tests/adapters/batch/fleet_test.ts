/**
 * The Redis fleet end to end: a real redis-server on 127.0.0.1, three `vouch
 * worker` processes, `vouch batch --queue` from another process (both under
 * `--deny-net`, so the queue path's own permission is exercised), one worker
 * SIGKILLed in the middle of a job. Every candidate must get exactly one
 * verdict, and the report must equal a local `vouch batch` of the same input.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type BatchReport, runBatch } from "../../../adapters/batch/mod.ts";
import { makeCohort, timeless } from "./_cohort.ts";
import { spawnCollecting as spawn, until, vouchArgs } from "./_fleet_procs.ts";
import { redisServerPath, startRedis } from "./_redis.ts";

// The `deno task vouch` flags (with --deny-net), so the queue path's own permission is exercised.
const VOUCH_FLAGS = vouchArgs(null);

const redis = redisServerPath();
if (redis === null) {
  console.log("fleet tests skipped: redis-server is not installed (apt-get install redis-server)");
}

Deno.test({
  name:
    "fleet: three workers, one SIGKILLed mid-job: exactly one verdict each, equal to local batch",
  ignore: redis === null,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "vouch-fleet-" });
    const server = startRedis(redis!);
    const port = server.port;
    const env = { XDG_STATE_HOME: join(dir, "state"), NO_COLOR: "1" };
    const workers: ReturnType<typeof spawn>[] = [];
    try {
      // Slow suites (about 1.5 s) so a worker can be killed while a job runs.
      const cohort = await makeCohort(dir, {
        node: 1,
        deno: 1,
        kinds: ["good", "noop", "partial", "test_editing", "scope_creep", "empty", "good"],
        sleepMs: 1500,
      });
      const local: BatchReport = (await runBatch({
        tasks: cohort.tasksFile,
        predictions: cohort.predictionsFile,
        outDir: join(dir, "local"),
        keyEnv: env,
      })).report;
      const url = server.url;
      for (const n of [1, 2, 3]) {
        // Worker 1 runs with the CLI's --deny-net and re-runs itself with that one address.
        const flags = n === 1 ? VOUCH_FLAGS : vouchArgs(port);
        workers.push(spawn(
          [
            ...flags,
            "worker",
            "--queue",
            url,
            "--tasks",
            cohort.tasksFile,
            "--out",
            join(dir, `w${n}`),
            "--lock-ms",
            "2000",
          ],
          env,
        ));
      }
      await until(
        "workers",
        () => workers.every((w) => w.lines.some((l) => l.startsWith("vouch worker: pid"))),
      );
      const batch = spawn([
        ...VOUCH_FLAGS,
        "batch",
        "--tasks",
        cohort.tasksFile,
        "--predictions",
        cohort.predictionsFile,
        "--out",
        join(dir, "fleet"),
        "--queue",
        url,
        "--json",
      ], env);
      // Kill worker 2 as soon as it has started a job it has not finished.
      const victim = workers[1]!;
      let killed: string | null = null;
      await until("a job on worker 2", () => {
        const started = victim.lines.filter((l) => l.startsWith("start ")).map((l) => l.slice(6));
        const open = started.filter((k) => !victim.lines.some((l) => l.includes(`] ${k}:`)));
        killed = open[0] ?? null;
        return killed !== null;
      });
      victim.child.kill("SIGKILL");
      await victim.child.status;
      const status = await batch.child.status;
      await batch.pump;
      assert.equal(status.code, 0, batch.lines.join("\n"));
      const { schemaVersion, ...fleet }: BatchReport & { schemaVersion: number } = JSON.parse(
        await batch.stdout,
      );
      assert.equal(schemaVersion, 1);
      // Exactly one verdict per candidate, and the same as the local run's.
      assert.equal(new Set(fleet.candidates.map((c) => c.id)).size, fleet.candidates.length);
      assert.deepEqual(fleet.candidates.map((c) => c.id), [...cohort.expected.keys()].sort());
      assert.deepEqual(timeless(fleet), timeless(local));
      // The killed worker's job was judged again by a surviving worker.
      const finishedBy = [workers[0]!, workers[2]!].filter((w) =>
        w.lines.some((l) => l.includes(`] ${killed}:`))
      );
      assert.equal(finishedBy.length, 1, `job ${killed} finished by ${finishedBy.length} workers`);
    } finally {
      for (const w of workers) {
        try {
          w.child.kill("SIGTERM");
        } catch { /* gone */ }
        await w.child.status;
        await w.pump.catch(() => {});
        await w.stdout.catch(() => {});
      }
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
