/**
 * Red team for `vouch batch merge`: shard reports are CI artefacts anyone in
 * the pipeline can rewrite. A shard report whose candidate was moved from
 * unresolved to resolved, one sealed with another fleet key, one with its
 * seal removed and one whose stored results were edited for a resume: each is
 * refused (exit 1, one line naming the file) and nothing is written; the
 * untouched shards merge. Real `vouch batch --shard` runs through the CLI.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { BatchReport } from "../../../adapters/batch/mod.ts";
import { makeCohort } from "../../adapters/batch/_cohort.ts";
import { VOUCH_TASK_FLAGS } from "../../golden/cli_harness.ts";

const MAIN = new URL("../../../cli/main.ts", import.meta.url).pathname;
const CONFIG = new URL("../../../deno.json", import.meta.url).pathname;

async function vouch(env: Record<string, string>, ...args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...VOUCH_TASK_FLAGS, "--config", CONFIG, MAIN, ...args],
    env,
    stdin: "null",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, out: text(out.stdout), err: text(out.stderr) };
}

Deno.test("red team: batch merge refuses edited, foreign and unsealed shard reports", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vouch-redteam-merge-" });
  try {
    const env = { ...Deno.env.toObject(), XDG_STATE_HOME: join(dir, "state"), NO_COLOR: "1" };
    const other = { ...env, XDG_STATE_HOME: join(dir, "other-state") };
    const cohort = await makeCohort(dir, { node: 1, deno: 0, kinds: ["good", "noop"] });
    const shard = async (i: number, e: Record<string, string>, out: string) => {
      const r = await vouch(
        e,
        "batch",
        "--tasks",
        cohort.tasksFile,
        "--predictions",
        cohort.predictionsFile,
        "--out",
        join(dir, out),
        "--sandbox",
        "none",
        "--shard",
        `${i}/2`,
      );
      assert.equal(r.code, 0, r.err);
      return join(dir, out, "report.json");
    };
    const one = await shard(1, env, "s1");
    const two = await shard(2, env, "s2");
    const reports = [one, two].map((p) => JSON.parse(Deno.readTextFileSync(p)) as BatchReport);
    assert.ok(reports.every((r) => r.seal !== undefined), "shard reports are sealed");
    const merged = await vouch(env, "batch", "merge", "--out", join(dir, "m"), one, two);
    assert.equal(merged.code, 0, merged.err);
    const good = JSON.parse(Deno.readTextFileSync(join(dir, "m", "report.json"))) as BatchReport;
    assert.equal(good.resolved_instances, 1);

    // The shard holding the non-fix, edited to say it resolved.
    const noopShard = reports.findIndex((r) => r.unresolved_ids.length === 1);
    assert.ok(noopShard >= 0);
    const victim = reports[noopShard]!;
    const id = victim.unresolved_ids[0]!;
    const edited: BatchReport = {
      ...victim,
      resolved_ids: [id],
      unresolved_ids: [],
      resolved_instances: 1,
      unresolved_instances: 0,
      candidates: victim.candidates.map((c) =>
        c.id === id ? { ...c, status: "resolved", reason: "verified" } : c
      ),
    };
    const editedPath = join(dir, "edited.json");
    Deno.writeTextFileSync(editedPath, JSON.stringify(edited, null, 2));
    const unsealedPath = join(dir, "unsealed.json");
    const { seal: _, ...unsealed } = edited;
    Deno.writeTextFileSync(unsealedPath, JSON.stringify(unsealed, null, 2));
    const goodPath = noopShard === 0 ? two : one;
    for (
      const [path, why] of [
        [editedPath, /its seal does not verify/],
        [unsealedPath, /it has no seal/],
      ] as const
    ) {
      const out = join(dir, `m-${why.source.length}`);
      const r = await vouch(env, "batch", "merge", "--out", out, goodPath, path);
      assert.equal(r.code, 1, r.err);
      const lines = r.err.trim().split("\n");
      assert.equal(lines.length, 1, r.err);
      assert.ok(lines[0]!.includes(path), r.err);
      assert.match(lines[0]!, why);
      assert.equal(existsSync(join(out, "report.json")), false);
    }
    // A shard sealed with another fleet key (a different key store).
    const foreign = await shard(noopShard + 1, other, "foreign");
    const r = await vouch(env, "batch", "merge", "--out", join(dir, "m-f"), goodPath, foreign);
    assert.equal(r.code, 1, r.err);
    assert.match(r.err, /refused shard report .*foreign.*another key/);

    // An edited resume store: the verdict no longer verifies, so it is judged again.
    const results = join(dir, "s2", "results");
    for (const f of Deno.readDirSync(results)) {
      const p = join(results, f.name);
      const v = JSON.parse(Deno.readTextFileSync(p));
      const flipped = v.status === "resolved"
        ? { status: "unresolved", reason: "failed_tests" }
        : { status: "resolved", reason: "verified" };
      Deno.writeTextFileSync(p, JSON.stringify({ ...v, ...flipped }));
    }
    await shard(2, env, "s2");
    const rerun = JSON.parse(Deno.readTextFileSync(two)) as BatchReport;
    assert.deepEqual(
      rerun.candidates.map((c) => c.status),
      reports[1]!.candidates.map((c) => c.status),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
