/**
 * The real `--json` of `vouch batch`, `vouch batch merge` and `vouch worker`
 * validates against its schema (ajv): a small local batch (a Node repository,
 * a resolving, a failing and an empty candidate), the merge of its report, and
 * a real redis-server on 127.0.0.1 with one `vouch worker --json` judging the
 * jobs of a `vouch batch --queue --json` (skipped, with the reason printed,
 * when redis-server is not installed). Each document carries
 * `"schemaVersion": 1` first and is otherwise the report (or verdict) vouch
 * wrote.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeCohort } from "../adapters/batch/_cohort.ts";
import { VOUCH_TASK_FLAGS } from "../golden/cli_harness.ts";
import { assertValid, schemaErrors } from "./_ajv.ts";
import { redisServerPath, startRedis } from "../adapters/batch/_redis.ts";
import { loadFleetKey } from "../../adapters/keys/fleet_key.ts";

const MAIN = new URL("../../cli/main.ts", import.meta.url).pathname;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;
const VOUCH = ["run", ...VOUCH_TASK_FLAGS, "--config", CONFIG, MAIN];

const redis = redisServerPath();
if (redis === null) {
  console.log("batch_outputs_test: redis-server is not installed; the worker --json test skips");
}

function versioned(file: string, text: string, what: string): Record<string, unknown> {
  const doc = JSON.parse(text) as Record<string, unknown>;
  assertValid(file, doc, what);
  assert.equal(Object.keys(doc)[0], "schemaVersion", `${what}: schemaVersion first`);
  assert.equal(doc.schemaVersion, 1);
  return doc;
}

Deno.test("real vouch batch --json and vouch batch merge --json validate (ajv)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vouch-batch-schemas-" });
  try {
    const cohort = await makeCohort(dir, { node: 1, deno: 0, kinds: ["good", "noop", "empty"] });
    const env = { ...Deno.env.toObject(), XDG_STATE_HOME: join(dir, "state"), NO_COLOR: "1" };
    const vouch = (...args: string[]) =>
      spawnSync(Deno.execPath(), [...VOUCH, ...args], { cwd: dir, env, encoding: "utf8" });
    const out = join(dir, "out");
    const batch = vouch(
      "batch",
      "--tasks",
      cohort.tasksFile,
      "--predictions",
      cohort.predictionsFile,
      "--out",
      out,
      "--sandbox",
      "none",
      "--json",
    );
    assert.equal(batch.status, 0, batch.stderr);
    const doc = versioned("batch-output.schema.json", batch.stdout, "vouch batch --json");
    const { schemaVersion: _v, ...report } = doc;
    // the rest is exactly the report written to DIR/report.json (which has no schemaVersion)
    const file = JSON.parse(readFileSync(join(out, "report.json"), "utf8"));
    assert.deepEqual(report, file);
    assert.deepEqual(schemaErrors("batch-report.schema.json", file), []);
    assert.equal(report.resolved_instances, 1);
    assert.equal(report.empty_patch_instances, 1);
    // the schema is strict: a document without schemaVersion, or with an unknown key, fails
    assert.notDeepEqual(schemaErrors("batch-output.schema.json", file), []);
    assert.notDeepEqual(schemaErrors("batch-output.schema.json", { ...doc, extra: 1 }), []);

    const merged = vouch(
      "batch",
      "merge",
      "--out",
      join(dir, "merged"),
      join(out, "report.json"),
      "--json",
    );
    assert.equal(merged.status, 0, merged.stderr);
    const mergedDoc = versioned("batch-output.schema.json", merged.stdout, "batch merge --json");
    assert.equal(mergedDoc.resolved_instances, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "real vouch worker --json lines validate (ajv), one per judged job",
  ignore: redis === null,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "vouch-worker-schemas-" });
    const server = startRedis(redis!);
    const env = { ...Deno.env.toObject(), XDG_STATE_HOME: join(dir, "state"), NO_COLOR: "1" };
    const url = server.url;
    const cohort = await makeCohort(dir, { node: 1, deno: 0, kinds: ["good", "noop"] });
    // The worker starts first and never makes the fleet key: the coordinator's, made here.
    await loadFleetKey({ env: { XDG_STATE_HOME: env.XDG_STATE_HOME }, create: true });
    const worker = new Deno.Command(Deno.execPath(), {
      args: [
        ...VOUCH,
        "worker",
        "--queue",
        url,
        "--tasks",
        cohort.tasksFile,
        "--out",
        join(dir, "w"),
        "--sandbox",
        "none",
        "--json",
      ],
      env,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const workerOut = new Response(worker.stdout).text();
    const workerErr = new Response(worker.stderr).text();
    try {
      const batch = await new Deno.Command(Deno.execPath(), {
        args: [
          ...VOUCH,
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
        ],
        env,
        stdin: "null",
      }).output();
      const text = (b: Uint8Array) => new TextDecoder().decode(b);
      assert.equal(batch.code, 0, text(batch.stderr));
      const report = versioned("batch-output.schema.json", text(batch.stdout), "batch --queue");
      worker.kill("SIGTERM");
      await worker.status;
      const lines = (await workerOut).split("\n").filter((line) => line !== "");
      assert.equal(lines.length, 2, await workerErr);
      const keys = lines.map((line, i) =>
        versioned("worker-output.schema.json", line, `vouch worker --json line ${i + 1}`).key
      );
      const candidates = report.candidates as { key: string; status: string }[];
      assert.deepEqual(keys.toSorted(), candidates.map((c) => c.key).toSorted());
    } finally {
      try {
        worker.kill("SIGKILL");
      } catch { /* gone */ }
      await worker.status;
      await workerOut.catch(() => {});
      await workerErr.catch(() => {});
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
