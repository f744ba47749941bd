/**
 * Locks and trees that heal: the CLI (its own Deno flags, `deno task vouch`)
 * is SIGKILLed at each phase of a `vouch verify` (during the baseline, during
 * the checks, right after the verdict while its trees are removed); the next
 * command must then work: it takes over the dead writer's lock with a note
 * (the flags refuse `/proc/<pid>`, so liveness is asked with `kill(pid, 0)`),
 * verifies, and `vouch gc --dir` leaves no tree of this repository behind.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { repoKey } from "../../adapters/worktree/location.ts";
import { assertNoWorktrees, runVouch, spawnVouch } from "./cli_harness.ts";
import { createRepo, type FixtureRepo, git, writeFiles } from "./fixture_repos.ts";

const SLOW_CHECK = "sleep 3; sh test.sh";
// The same check leaving 4,000 files in its clean tree, so that removing the trees after the
// verdict takes a while (up to the CLI's 3 s wait): the window the third phase's kill must hit.
const SLOW_CHECK_BIG_TREE = `${SLOW_CHECK} && mkdir -p many && cd many && seq 4000 | xargs touch`;

async function fixture(): Promise<{ repo: FixtureRepo; patch: string }> {
  const repo = await createRepo({
    "add.sh": "add() { echo $(($1 - $2)); }\n",
    "test.sh": '. ./add.sh\n[ "$(add 1 2)" = 3 ]\n',
  }, "sh test.sh");
  await writeFiles(repo.dir, { "add.sh": "add() { echo $(($1 + $2)); }\n" });
  const patch = await git(repo.dir, "diff", "--binary");
  await git(repo.dir, "checkout", "-q", "add.sh");
  await Deno.writeTextFile(`${repo.dir}/../fix.patch`, patch);
  return { repo, patch: `${repo.dir}/../fix.patch` };
}

/**
 * Reads `stream` until `pattern` shows, then SIGKILLs the child; returns what it read, or null
 * when the child had already exited on its own (the kill came after its last write).
 */
async function killWhen(
  child: Deno.ChildProcess,
  stream: "stdout" | "stderr",
  pattern: RegExp,
): Promise<string | null> {
  const other = stream === "stdout" ? child.stderr : child.stdout;
  void other.pipeTo(new WritableStream()).catch(() => {});
  const decoder = new TextDecoder();
  let text = "";
  const reader = child[stream].getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (pattern.test(text)) {
        child.kill("SIGKILL");
        break;
      }
    }
  } finally {
    reader.releaseLock();
    await child[stream].cancel().catch(() => {});
  }
  const status = await child.status;
  if (status.signal === null && status.code === 0 && pattern.test(text)) return null;
  assert.equal(status.signal, "SIGKILL", `killed at ${pattern}; saw: ${text}`);
  return text;
}

for (
  const phase of [
    {
      name: "during the baseline",
      stream: "stderr",
      at: /baseline: check "verify"/,
      check: SLOW_CHECK,
    },
    {
      name: "during the checks",
      stream: "stderr",
      at: /^verify: check "verify"/m,
      check: SLOW_CHECK,
    },
    {
      name: "during tree removal (after the verdict)",
      stream: "stdout",
      at: /VERIFIED/,
      check: SLOW_CHECK_BIG_TREE,
    },
  ] as const
) {
  Deno.test(`crash ${phase.name}: the next command takes over the lock and works`, async () => {
    const { repo, patch } = await fixture();
    const state = await Deno.makeTempDir({ prefix: "vouch-crash-state-" });
    try {
      const args = ["verify", "--patch", patch, "--verify", phase.check, "--baseline"];
      // After the verdict the kill races the CLI's exit: on a busy machine the trees may be gone
      // before it lands. Such a run proves nothing, so it is run again (the kill must land once).
      let killed: string | null = null;
      for (let attempt = 0; killed === null && attempt < 4; attempt++) {
        killed = await killWhen(spawnVouch(repo, args, state), phase.stream, phase.at);
      }
      assert.notEqual(killed, null, `the kill at ${phase.at} never landed before the CLI exited`);
      const lock = `${repo.dir}/.vouch/events.jsonl.lock`;
      if (phase.stream === "stderr") assert.ok(existsSync(lock), "the killed writer left its lock");
      const next = await runVouch(
        repo,
        ["verify", "--patch", patch, "--verify", "sh test.sh"],
        state,
      );
      assert.equal(next.code, 0, next.stderr + next.stdout);
      assert.match(next.stdout, /^VERIFIED /);
      if (phase.stream === "stderr") {
        assert.match(
          next.stderr,
          /took over the lock .*events\.jsonl\.lock of pid \d+ on .* \(that process is gone\)/,
        );
      }
      assert.equal(existsSync(lock), false, "the lock is released");
      // The killed run's trees: its owner is gone, so gc (scoped to this repository) removes them.
      const gc = await runVouch(repo, ["gc", "--dir", repo.dir, "--json"], state);
      assert.equal(gc.code, 0, gc.stderr);
      await assertNoWorktrees(state);
      const inspect = await runVouch(repo, ["inspect"], state, "deno", {
        VOUCH_KEY_FILE: `${state}/key`,
      });
      assert.equal(inspect.code, 0, inspect.stdout + inspect.stderr);
    } finally {
      await repo.cleanup();
      await Deno.remove(state, { recursive: true }).catch(() => {});
    }
  });
}

Deno.test("vouch gc --dir REPO: only that repository's dead trees, listed and removed; its emptied folder goes", async () => {
  const { repo: a } = await fixture();
  const { repo: b } = await fixture();
  const state = await Deno.makeTempDir({ prefix: "vouch-gc-state-" });
  try {
    const leftover = async (repo: FixtureRepo) => {
      const top = await Deno.realPath(repo.dir);
      const container = `${state}/worktrees/${repoKey(top)}/t-dead-1-verify`;
      await Deno.mkdir(`${container}/tree`, { recursive: true });
      await Deno.writeTextFile(
        `${container}/owner.json`,
        JSON.stringify({
          schema: "vouch.worktree/v1",
          repo: top,
          pid: 2 ** 22 + 4321,
          pidStart: null,
        }),
      );
      return container;
    };
    const [inA, inB] = [await leftover(a), await leftover(b)];
    const dry = await runVouch(a, ["gc", "--dir", ".", "--dry-run", "--json"], state);
    assert.equal(dry.code, 0, dry.stderr);
    assert.deepEqual(dry.json?.["removed"], [inA], "only this repository's tree is listed");
    assert.deepEqual(dry.json?.["skipped"], []);
    const gc = await runVouch(a, ["gc", "--dir", a.dir], state);
    assert.equal(gc.code, 0, gc.stderr);
    assert.equal(existsSync(inA), false);
    assert.equal(existsSync(dirname(inA)), false, "the emptied per-repository folder is removed");
    assert.equal(existsSync(inB), true, "another repository's tree is left alone");
  } finally {
    await a.cleanup();
    await b.cleanup();
    await Deno.remove(state, { recursive: true }).catch(() => {});
  }
});

/** Polls until no tree is left under the state's worktree root (bounded: 60 s). */
async function treesGone(state: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      await assertNoWorktrees(state);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await assertNoWorktrees(state);
}

for (
  const c of [
    {
      name: "a second Ctrl-C in run",
      args: (agent: string) => [
        "run",
        "--backend",
        `command:${agent}`,
        "--goal",
        "fix",
        "--progress",
        "plain",
        "--verify",
        // The fixed round's check ignores SIGINT/SIGTERM, so stopping it takes vouch's whole
        // kill grace: the second Ctrl-C surely comes while the first is still stopping the run.
        `if grep -q "+" add.sh; then trap '' INT TERM; sleep 60; fi; sh test.sh`,
      ],
      at: /round 1 · verify · check "verify"/,
      signals: 2,
    },
    {
      name: "Ctrl-C in verify",
      args: (_agent: string, patch: string) => [
        "verify",
        "--patch",
        patch,
        "--verify",
        "sleep 60; sh test.sh",
      ],
      at: /^verify: check "verify"/m,
      signals: 1,
    },
  ] as const
) {
  Deno.test(`${c.name} leaves at once: the lock is released and the trees are removed behind it`, async () => {
    const { repo, patch } = await fixture();
    const state = await Deno.makeTempDir({ prefix: "vouch-sigint-state-" });
    const agent = `${repo.dir}/../agent.sh`;
    await Deno.writeTextFile(
      agent,
      `#!/bin/sh\nprintf '%s\\n' 'add() { echo $(($1 + $2)); }' > add.sh\n`,
    );
    await Deno.chmod(agent, 0o755);
    try {
      const child = spawnVouch(repo, c.args(agent, patch), state);
      const decoder = new TextDecoder();
      let err = "";
      const reader = child.stderr.getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        err += decoder.decode(value, { stream: true });
        if (c.at.test(err)) break;
      }
      child.kill("SIGINT");
      if (c.signals === 2) {
        // The second only once vouch has taken the first (two signals sent back to back can
        // reach it as one on a busy machine), while it is still stopping the run.
        while (!/Ctrl-C again/.test(err)) {
          const { value, done } = await reader.read();
          if (done) break;
          err += decoder.decode(value, { stream: true });
        }
        child.kill("SIGINT");
      }
      const rest = (async () => {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          err += decoder.decode(value, { stream: true });
        }
      })();
      // Drained, not closed: a closed stdout would make the verdict's write fail (EPIPE).
      const out = new Response(child.stdout).text();
      const status = await child.status;
      await rest;
      await out;
      assert.equal(status.code, 130, err);
      assert.match(
        err,
        /vouch: cancelled, leaving now: the log's lock released; \d trees? being removed/,
      );
      assert.equal(existsSync(`${repo.dir}/.vouch/events.jsonl.lock`), false, "no lock is left");
      await treesGone(state);
      const next = await runVouch(
        repo,
        ["verify", "--patch", patch, "--verify", "sh test.sh"],
        state,
      );
      assert.equal(next.code, 0, next.stderr + next.stdout);
      assert.doesNotMatch(next.stderr, /took over/, "the lock was released, not taken over");
      const worktrees = await git(repo.dir, "worktree", "list", "--porcelain");
      assert.equal(worktrees.match(/^worktree /gm)?.length, 1, worktrees);
    } finally {
      await repo.cleanup();
      await Deno.remove(state, { recursive: true }).catch(() => {});
    }
  });
}
