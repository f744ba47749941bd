/**
 * Red team for the Redis fleet: an attacker who can talk to Redis (it has the
 * password, or Redis is open) but does not hold the fleet key.
 *
 * - Forged completions: `HSET` of a `resolved` return value (in the old bare
 *   verdict shape, and in the signed shape with a MAC of another key) plus
 *   `ZADD …:completed`, with `redis-cli`, while `vouch batch --queue` waits.
 *   The coordinator refuses both (exit 1, one line each), they stay unjudged,
 *   nothing is resolved.
 * - Injected jobs: an unsigned job (the old job shape: a task line naming a
 *   private repository with a command that writes a marker), a job signed
 *   with the wrong key, and a job signed with the right key but naming a task
 *   outside the worker's tasks file. The worker refuses all three, judges
 *   none, and the marker never appears.
 * - A queue URL without credentials is refused before anything connects, and
 *   a wrong password says "Cannot log in".
 *
 * Real redis-server (requirepass, and an ACL user), real `vouch` CLI processes.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Queue } from "bullmq";
import type { BatchReport } from "../../../adapters/batch/mod.ts";
import { signJob } from "../../../adapters/batch/fleet_seal.ts";
import { readTasks } from "../../../adapters/batch/input.ts";
import { connectionOptions, parseQueueUrl } from "../../../adapters/batch/queue.ts";
import { canonicalDigest } from "../../../adapters/canonical_json/canonical_json.ts";
import { loadFleetKey } from "../../../adapters/keys/fleet_key.ts";
import { importMacKey } from "../../../adapters/keys/mac_key.ts";
import { makeCohort } from "../../adapters/batch/_cohort.ts";
import { redisCliPath, redisServerPath, startRedis } from "../../adapters/batch/_redis.ts";
import {
  spawnCollecting as spawn,
  until as untilEvery,
  vouchArgs,
} from "../../adapters/batch/_fleet_procs.ts";
import { git, writeFiles } from "../../golden/fixture_repos.ts";

/** The fleet red team polls every 100 ms. */
const until = (what: string, ok: () => boolean | Promise<boolean>) =>
  untilEvery(what, ok, 90_000, 100);

const redis = redisServerPath();
const cli = redisCliPath();
if (redis === null || cli === null) {
  console.log("fleet red-team tests skipped: redis-server/redis-cli not installed");
}

Deno.test({
  name: "red team: forged completions written with redis-cli are refused, never resolved",
  ignore: redis === null || cli === null,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "vouch-redteam-fleet-" });
    const server = startRedis(redis!, { password: "s3cret pw/+@:" });
    const env = { ...Deno.env.toObject(), XDG_STATE_HOME: join(dir, "state"), NO_COLOR: "1" };
    try {
      // Two non-fixes: a no-op and a partial fix. No worker runs: only the attacker answers.
      const cohort = await makeCohort(dir, { node: 1, deno: 0, kinds: ["noop", "partial"] });
      const batch = spawn(
        vouchArgs(
          server.port,
          "batch",
          "--tasks",
          cohort.tasksFile,
          "--predictions",
          cohort.predictionsFile,
          "--out",
          join(dir, "out"),
          "--queue",
          server.url,
          "--json",
        ),
        env,
      );
      let keys: string[] = [];
      await until("the two jobs", async () => {
        const listed = await server.cli("--raw", "KEYS", "bull:vouch-batch:*").catch(() => "");
        keys = listed.split("\n").map((k) => k.slice("bull:vouch-batch:".length))
          .filter((k) => /^[0-9a-f]{64}$/.test(k));
        return keys.length === 2;
      });
      keys.sort();
      const hash = (k: string) => `bull:vouch-batch:${k}`;
      const job = JSON.parse(await server.cli("--raw", "HGET", hash(keys[0]!), "data"));
      const resolved = (key: string, patchDigest: string) => ({
        key,
        patch_digest: patchDigest,
        base: "0".repeat(40),
        status: "resolved",
        reason: "verified",
        reasons: [],
        detail: "verified",
        tests: [],
        artefacts: { dir: null, log: null, verified_patch: null, attestation: null },
      });
      // 1. The old shape: a bare verdict.
      const forged = [
        JSON.stringify(resolved(keys[0]!, "sha256:" + "1".repeat(64))),
        // 2. The signed shape, with a well-formed MAC of another key.
        JSON.stringify({
          v: 2,
          verdict: resolved(keys[1]!, "sha256:" + "2".repeat(64)),
          evidence: { verified_patch: null, attestation: null },
          mac: "ab".repeat(32),
        }),
      ];
      assert.equal(typeof job.mac, "string", "the coordinator's jobs are signed");
      const now = String(Date.now());
      for (const [i, key] of keys.entries()) {
        await server.cli("HSET", hash(key), "returnvalue", forged[i]!, "finishedOn", now);
        await server.cli("LREM", "bull:vouch-batch:wait", "0", key);
        await server.cli("ZADD", "bull:vouch-batch:completed", now, key);
      }
      const status = await batch.child.status;
      await batch.pump;
      const report: BatchReport = JSON.parse(await batch.stdout);
      assert.equal(status.code, 1, batch.lines.join("\n"));
      assert.deepEqual(report.resolved_ids, []);
      assert.deepEqual(report.completed_ids, []);
      assert.deepEqual(report.incomplete_ids, [...cohort.expected.keys()].sort());
      const refused = batch.lines.filter((l) => l.includes("refused the verdict of"));
      assert.equal(refused.length, 2, batch.lines.join("\n"));
      assert.ok(refused.some((l) => l.includes("not a signed verdict")), refused.join("\n"));
      assert.ok(refused.some((l) => l.includes("MAC does not verify")), refused.join("\n"));
      // Nothing was kept for resume: a rerun judges them again.
      const results = join(dir, "out", "results");
      assert.deepEqual(existsSync(results) ? [...Deno.readDirSync(results)] : [], []);
    } finally {
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "red team: unsigned, wrongly signed and out-of-tasks jobs are refused by the worker; nothing runs",
  ignore: redis === null || cli === null,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "vouch-redteam-fleet-jobs-" });
    // An ACL user instead of requirepass; the default user is disabled.
    const server = startRedis(redis!, { user: "fleet", password: "acl-pw" });
    const env = { ...Deno.env.toObject(), XDG_STATE_HOME: join(dir, "state"), NO_COLOR: "1" };
    let worker: ReturnType<typeof spawn> | null = null;
    const queue = new Queue("vouch-batch", {
      connection: connectionOptions(parseQueueUrl(server.url)),
    });
    try {
      const cohort = await makeCohort(dir, { node: 1, deno: 0, kinds: ["good"] });
      // A private repository no tasks file names, and a task whose command writes a marker.
      const marker = join(dir, "INJECTED_RAN");
      const secret = join(dir, "secret-repo");
      await Deno.mkdir(secret);
      await git(secret, "init", "-q");
      await git(secret, "config", "user.email", "e@example.invalid");
      await git(secret, "config", "user.name", "e");
      await writeFiles(secret, { "README": "private\n" });
      await git(secret, "add", "-A");
      await git(secret, "commit", "-qm", "init");
      const evilLine = {
        id: "calc-1",
        repo: secret,
        base: "HEAD",
        verify: { command: `touch ${marker}` },
      };
      const patch =
        "diff --git a/README b/README\n--- a/README\n+++ b/README\n@@ -1 +1 @@\n-private\n+x\n";
      const fleetKey = await loadFleetKey({
        env: { XDG_STATE_HOME: join(dir, "state") },
        create: true,
      });
      const wrongKey = await importMacKey(new Uint8Array(32).fill(9), "attacker");
      const realTask = (await readTasks(cohort.tasksFile)).tasks[0]!;
      worker = spawn(
        vouchArgs(
          server.port,
          "worker",
          "--queue",
          server.url,
          "--tasks",
          cohort.tasksFile,
          "--out",
          join(dir, "w"),
          "--sandbox",
          "none",
        ),
        env,
      );
      const w = worker;
      await until("the worker", () => w.lines.some((l) => l.startsWith("vouch worker: pid")));
      const k = (c: string) => c.repeat(64);
      // 1. The old, unsigned job shape: a task line and its directory.
      await queue.add("judge", { task: { line: evilLine, dir }, patch, key: k("a") }, {
        jobId: k("a"),
      });
      // 2. The new shape for a real task, signed with another key.
      await queue.add(
        "judge",
        await signJob(wrongKey, "vouch-batch", { task: realTask.digest, patch, key: k("b") }),
        { jobId: k("b") },
      );
      // 3. Signed with the fleet key, but naming a task outside the worker's tasks file.
      await queue.add(
        "judge",
        await signJob(fleetKey, "vouch-batch", {
          task: canonicalDigest(evilLine),
          patch,
          key: k("c"),
        }),
        { jobId: k("c") },
      );
      await until("three refusals", async () => {
        const states = await Promise.all(
          [k("a"), k("b"), k("c")].map((id) => queue.getJobState(id)),
        );
        return states.every((s) => s === "failed");
      });
      const reasons = await Promise.all(
        [k("a"), k("b"), k("c")].map(async (id) => (await queue.getJob(id))?.failedReason ?? ""),
      );
      assert.match(reasons[0]!, /not a signed vouch job/);
      assert.match(reasons[1]!, /MAC does not verify/);
      assert.match(reasons[2]!, /outside this worker's tasks file/);
      // One attempt each (unrecoverable), and nothing of them ran.
      for (const id of [k("a"), k("b"), k("c")]) {
        assert.equal((await queue.getJob(id))?.attemptsMade, 1);
      }
      assert.equal(
        w.lines.filter((l) => l.startsWith("refused job")).length,
        3,
        w.lines.join("\n"),
      );
      assert.equal(w.lines.filter((l) => l.startsWith("start ")).length, 0, w.lines.join("\n"));
      assert.equal(existsSync(marker), false, "the injected command ran");
    } finally {
      await queue.close();
      if (worker !== null) {
        worker.child.kill("SIGTERM");
        await worker.child.status;
        await worker.pump.catch(() => {});
        await worker.stdout.catch(() => {});
      }
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "red team: a worker without the fleet key stops at start (fleet_key_missing); a queue URL without credentials is refused; a wrong password cannot log in",
  ignore: redis === null,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "vouch-redteam-fleet-url-" });
    const server = startRedis(redis!);
    const env = { ...Deno.env.toObject(), XDG_STATE_HOME: join(dir, "state"), NO_COLOR: "1" };
    try {
      const tasks = join(dir, "tasks.jsonl");
      await Deno.writeTextFile(tasks, "");
      const run = async (...args: string[]) => {
        const out = await new Deno.Command(Deno.execPath(), {
          args: vouchArgs(server.port, ...args),
          env,
          stdin: "null",
        }).output();
        return { code: out.code, err: new TextDecoder().decode(out.stderr) };
      };
      // No fleet key yet: the worker stops at start, one line, before it logs in (even with a
      // wrong password); it never makes a key of its own that would refuse every job.
      const keyless = await run("worker", "--queue", server.url, "--tasks", tasks);
      assert.equal(keyless.code, 5, keyless.err);
      assert.deepEqual(keyless.err.trim().split("\n").length, 1, keyless.err);
      assert.match(keyless.err, /^vouch worker: Cannot load the fleet key: .*fleet\.hmac\.json/);
      assert.match(keyless.err, /\(fleet_key_missing\)$/m);
      assert.ok(!existsSync(join(dir, "state/vouch/keys/fleet.hmac.json")), "no key was made");
      const noKeyWrongPw = await run(
        "worker",
        "--queue",
        server.url.replace("vouch-test-pw", "wrong"),
        "--tasks",
        tasks,
      );
      assert.equal(noKeyWrongPw.code, 5, noKeyWrongPw.err);
      assert.match(noKeyWrongPw.err, /fleet_key_missing/);
      assert.doesNotMatch(noKeyWrongPw.err, /Cannot log in/);
      await loadFleetKey({ env: { XDG_STATE_HOME: join(dir, "state") }, create: true });
      const bare = await run("worker", "--queue", server.bareUrl, "--tasks", tasks);
      assert.equal(bare.code, 2, bare.err);
      assert.match(bare.err, /without credentials/);
      assert.match(bare.err, /--insecure-queue/);
      const wrong = await run(
        "worker",
        "--queue",
        server.url.replace("vouch-test-pw", "wrong"),
        "--tasks",
        tasks,
      );
      assert.equal(wrong.code, 5, wrong.err);
      assert.match(wrong.err, /Cannot log in/);
      assert.doesNotMatch(wrong.err, /wrong@/, "the password is not echoed");
    } finally {
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
