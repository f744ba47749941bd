/**
 * The queue over TLS: a real redis-server listening only on a TLS port (a
 * certificate made here with openssl) with `requirepass`, a worker and a
 * coordinator in this process reaching it by `rediss://` with the certificate
 * as the trusted CA (`--queue-ca`). The candidate is judged as locally.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { runBatch } from "../../../adapters/batch/mod.ts";
import { readTasks } from "../../../adapters/batch/input.ts";
import { enqueueExecutor, parseQueueUrl, runQueueWorker } from "../../../adapters/batch/queue.ts";
import { loadFleetKey } from "../../../adapters/keys/fleet_key.ts";
import { makeCohort } from "./_cohort.ts";
import { redisServerPath, startRedis } from "./_redis.ts";

const redis = redisServerPath();
let openssl = true;
try {
  execFileSync("openssl", ["version"], { stdio: "ignore" });
} catch {
  openssl = false;
}
if (redis === null || !openssl) {
  console.log("queue TLS test skipped: redis-server or openssl missing");
}

Deno.test({
  name: "queue over TLS (rediss:// with a private CA) and a password judges as locally",
  ignore: redis === null || !openssl,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "vouch-queue-tls-" });
    execFileSync("openssl", [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      join(dir, "cert.pem"),
      "-days",
      "1",
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
    ], { stdio: "ignore" });
    const server = startRedis(redis!, {
      tls: { cert: join(dir, "cert.pem"), key: join(dir, "key.pem") },
    });
    const stop = new AbortController();
    let worker: Promise<void> | null = null;
    try {
      assert.match(server.url, /^rediss:\/\//);
      const cohort = await makeCohort(dir, { node: 1, deno: 0, kinds: ["good", "noop"] });
      const keyEnv = { XDG_STATE_HOME: join(dir, "state") };
      const fleetKey = await loadFleetKey({ env: keyEnv, create: true });
      const address = {
        ...parseQueueUrl(server.url),
        ca: await Deno.readTextFile(join(dir, "cert.pem")),
      };
      assert.equal(address.tls, true);
      worker = runQueueWorker(address, {
        tasks: (await readTasks(cohort.tasksFile)).tasks,
        fleetKey,
        outDir: join(dir, "w"),
        keyEnv,
        sandbox: "none",
        signal: stop.signal,
      });
      const { report } = await runBatch({
        tasks: cohort.tasksFile,
        predictions: cohort.predictionsFile,
        outDir: join(dir, "out"),
        keyEnv,
        fleetKey,
        executor: enqueueExecutor(address, { fleetKey, pollMs: 50 }),
      });
      assert.equal(report.resolved_instances, 1);
      assert.equal(report.unresolved_instances, 1);
    } finally {
      stop.abort();
      await worker?.catch(() => {});
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
