/**
 * A batch worker SIGKILLed mid-check (through `deno task vouch`'s flags, a
 * real bwrap check): nothing it started keeps running (the check dies with
 * it), its clean tree is still registered right after, and the next start
 * removes that tree (its owner is dead) and judges the candidate.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { VOUCH_TASK_FLAGS } from "../golden/cli_harness.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const HAS_BWRAP = new Deno.Command("sh", { args: ["-c", "command -v bwrap"] }).outputSync()
  .success;

/** Pids whose command line has `marker` (the check's own `sleep`). */
function processesWith(marker: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "latin1").includes(marker)) out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function git(cwd: string, ...args: string[]): string {
  const r = new Deno.Command("git", { args, cwd, stdout: "piped", stderr: "piped" }).outputSync();
  if (!r.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(r.stderr)}`);
  return new TextDecoder().decode(r.stdout);
}

Deno.test({
  name: "batch SIGKILLed mid-check: no process left, tree reaped by the next start, which verifies",
  ignore: !HAS_BWRAP,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "vouch-killed-batch-" });
    try {
      const repo = join(dir, "repo");
      await Deno.mkdir(repo);
      git(repo, "init", "-q");
      git(repo, "config", "user.email", "e@example.invalid");
      git(repo, "config", "user.name", "e");
      await Deno.writeTextFile(join(repo, "answer.txt"), "41\n");
      git(repo, "add", ".");
      git(repo, "commit", "-qm", "init");
      // A unique sleep the patched tree's check runs (the base fails at once).
      const marker = `${200 + Math.floor(Math.random() * 99)}.${Date.now() % 100000}`;
      const task = (check: string) =>
        JSON.stringify({ id: "k", repo: "repo", base: "HEAD", verify: { command: check } }) + "\n";
      await Deno.writeTextFile(
        join(dir, "tasks.jsonl"),
        task(`if grep -q 42 answer.txt; then sleep ${marker}; fi; grep -qx 42 answer.txt`),
      );
      await Deno.writeTextFile(join(dir, "tasks2.jsonl"), task("grep -qx 42 answer.txt"));
      await Deno.writeTextFile(
        join(dir, "preds.json"),
        JSON.stringify([{
          instance_id: "k",
          model_name_or_path: "m",
          model_patch:
            "diff --git a/answer.txt b/answer.txt\n--- a/answer.txt\n+++ b/answer.txt\n@@ -1 +1 @@\n-41\n+42\n",
        }]),
      );
      const env = { VOUCH_WORKTREE_ROOT: join(dir, "worktrees"), XDG_STATE_HOME: join(dir, "st") };
      const batch = (tasks: string) =>
        new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            ...VOUCH_TASK_FLAGS,
            "--config",
            `${ROOT}deno.json`,
            `${ROOT}cli/main.ts`,
            "batch",
            "--tasks",
            join(dir, tasks),
            "--predictions",
            join(dir, "preds.json"),
            "--out",
            join(dir, "out"),
          ],
          cwd: dir,
          env,
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        });
      const child = batch("tasks.jsonl").spawn();
      // Wait (at most 5 min on a loaded machine) until the check's sleep runs.
      for (let i = 0; processesWith(`sleep\0${marker}`).length === 0; i++) {
        if (i > 3000) throw new Error("the check never started");
        await new Promise((r) => setTimeout(r, 100));
      }
      process.kill(child.pid, "SIGKILL");
      await child.status;
      await child.stdout.cancel();
      await child.stderr.cancel();
      // The check dies with it (the kernel delivers bwrap's parent-death signal promptly).
      for (let i = 0; processesWith(`sleep\0${marker}`).length > 0; i++) {
        if (i > 300) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.deepEqual(processesWith(`sleep\0${marker}`), [], "nothing the batch started runs");
      const listed = () =>
        git(repo, "worktree", "list", "--porcelain").split("\n").filter((l) =>
          l.startsWith("worktree ")
        ).length;
      assert.equal(listed(), 2, "the killed batch's tree is still registered");

      const next = await batch("tasks2.jsonl").output();
      const out = new TextDecoder().decode(next.stdout) + new TextDecoder().decode(next.stderr);
      assert.equal(next.code, 0, out);
      assert.match(out, /k: VERIFIED, resolved/);
      assert.equal(listed(), 1, "the next start removed the dead batch's tree");
    } finally {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
