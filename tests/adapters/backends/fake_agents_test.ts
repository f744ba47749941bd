// The codex and claude backends against the fake executables in
// tests/fixtures/bin: real processes, real worktrees, real git.
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRepo, snapshot, snapshotDifferences } from "../../golden/fixture_repos.ts";
import {
  type AgentBackend,
  type AgentTask,
  type BackendEvent,
  claudeBackend,
  codexBackend,
} from "../../../adapters/backends/mod.ts";
import {
  compareCheckoutSnapshots,
  snapshotCheckout,
} from "../../../adapters/git/checkout_snapshot.ts";
import { createWorktree, extractDiff, removeWorktree } from "../../../adapters/worktree/mod.ts";

const BIN = fileURLToPath(new URL("../../fixtures/bin/", import.meta.url));

const SCRIPT = JSON.stringify({
  edits: [{ path: "src/math.js", replace: ["a - b", "a + b"] }],
});

async function withTask(
  backend: (mode: string) => AgentBackend,
  mode: string,
  body: (r: {
    result: Awaited<ReturnType<AgentBackend["run"]>>;
    events: BackendEvent[];
    diffPaths: string[];
    outside: string[];
    transcript: string;
    elapsedMs: number;
  }) => Promise<void> | void,
  opts: { maxSeconds?: number; abortAfterMs?: number; maxOutputMb?: number } = {},
): Promise<void> {
  const repo = await createRepo({
    "src/math.js": "exports.add = (a, b) => a - b;\n",
    ".vouch-fake-agent.json": SCRIPT,
  }, "true");
  const root = await Deno.makeTempDir({ prefix: "vouch-be-root-" });
  const transcriptDir = await Deno.makeTempDir({ prefix: "vouch-be-tr-" });
  try {
    const wt = await createWorktree({ repo: repo.dir, taskId: "t", attempt: 1, root });
    try {
      const before = await snapshotCheckout(repo.dir);
      const userBytes = await snapshot(repo.dir);
      const task: AgentTask = {
        taskId: "t",
        attempt: 1,
        goal: "make add() add",
        worktree: wt.path,
        allowedRoots: ["src/**"],
        forbiddenPaths: [".github/**"],
        maxSeconds: opts.maxSeconds ?? 30,
        maxOutputMb: opts.maxOutputMb ?? 8,
      };
      const events: BackendEvent[] = [];
      const ac = new AbortController();
      if (opts.abortAfterMs !== undefined) setTimeout(() => ac.abort(), opts.abortAfterMs);
      const started = performance.now();
      const result = await backend(mode).run(task, {
        signal: ac.signal,
        emit: (e) => events.push(e),
        transcriptDir,
      });
      const elapsedMs = performance.now() - started;
      const diff = await extractDiff(wt);
      const outside = compareCheckoutSnapshots(before, await snapshotCheckout(repo.dir)).map((c) =>
        `${c.kind}:${c.name}`
      );
      const transcript = result.transcript?.path
        ? await Deno.readTextFile(result.transcript.path)
        : "";
      await body({
        result,
        events,
        diffPaths: diff.changed.map((c) => c.path),
        outside,
        transcript,
        elapsedMs,
      });
      if (mode !== "write-outside") {
        assert.deepEqual(snapshotDifferences(userBytes, await snapshot(repo.dir)), []);
      }
    } finally {
      await removeWorktree(wt);
    }
  } finally {
    await repo.cleanup();
    await Deno.remove(root, { recursive: true }).catch(() => {});
    await Deno.remove(transcriptDir, { recursive: true }).catch(() => {});
  }
}

async function processGone(pid: number): Promise<boolean> {
  for (let i = 0; i < 20; i++) {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`).catch(() => null);
    // Gone, or a zombie waiting for init to reap it.
    if (stat === null || stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

const BACKENDS: Record<string, (mode: string) => AgentBackend> = {
  codex: (mode) =>
    codexBackend({
      executable: join(BIN, "codex"),
      env: { VOUCH_FAKE_AGENT_MODE: mode },
      graceMs: 300,
    }),
  claude: (mode) =>
    claudeBackend({
      executable: join(BIN, "claude"),
      env: { VOUCH_FAKE_AGENT_MODE: mode },
      graceMs: 300,
    }),
};

for (const [name, make] of Object.entries(BACKENDS)) {
  Deno.test(`${name} (fake): fix mode edits the worktree and ends ok; the diff is the real change`, async () => {
    await withTask(make, "fix", ({ result, events, diffPaths, outside, transcript }) => {
      assert.equal(result.status, "ok", result.failure?.message);
      assert.equal(result.backend, name);
      assert.equal(result.selfClaimedDone, true);
      assert.equal(result.exitCode, 0);
      assert.deepEqual(diffPaths, ["src/math.js"]);
      assert.deepEqual(outside, []);
      assert.ok(events.some((e) => e.kind === "started"));
      assert.ok(events.some((e) => e.kind === "file_change"));
      assert.ok((result.usage.outputTokens ?? 0) > 0);
      assert.match(transcript, /--- stdout/);
      assert.match(result.transcript?.digest ?? "", /^sha256:/);
    });
  });

  Deno.test(`${name} (fake): claims done without fixing -> ok claim, empty real diff`, async () => {
    await withTask(make, "claims-done", ({ result, diffPaths }) => {
      assert.equal(result.status, "ok");
      assert.equal(result.selfClaimedDone, true);
      assert.deepEqual(diffPaths, []);
    });
  });

  Deno.test(`${name} (fake): fixes but reports failure -> error from the stream, diff still extracted`, async () => {
    await withTask(make, "fix-reports-failure", ({ result, diffPaths }) => {
      assert.equal(result.status, "error");
      assert.equal(result.failure?.code, "execution");
      assert.equal(result.failure?.retryable, false);
      assert.equal(result.selfClaimedDone, false);
      assert.deepEqual(diffPaths, ["src/math.js"]);
    });
  });

  Deno.test(`${name} (fake): a write outside the worktree is detected in the user's checkout`, async () => {
    await withTask(make, "write-outside", ({ outside }) => {
      assert.ok(outside.includes("file:ESCAPED_BY_AGENT.txt"), outside.join(","));
      assert.ok(outside.includes("part:status"), outside.join(","));
    });
  });

  Deno.test(`${name} (fake): prompt injection is data; secrets in it are masked everywhere`, async () => {
    await withTask(make, "inject", ({ result, events, transcript }) => {
      assert.equal(result.status, "ok");
      assert.doesNotMatch(result.summary, /ghp_/);
      assert.match(result.summary, /IGNORE ALL PREVIOUS INSTRUCTIONS/);
      assert.doesNotMatch(transcript, /ghp_0123/);
      assert.ok((result.transcript?.masked ?? 0) > 0);
      assert.doesNotMatch(JSON.stringify(events), /ghp_0123/);
    });
  });

  Deno.test(`${name} (fake): malformed and truncated lines are protocol issues, tolerated`, async () => {
    await withTask(make, "malformed", ({ result, events }) => {
      assert.ok(result.protocolIssues >= 3, String(result.protocolIssues));
      assert.ok(events.some((e) => e.kind === "protocol" && e.code === "truncated"));
      // A malformed *extra* result line makes Claude's result count ambiguous; Codex still completes.
      assert.equal(result.status, "ok", result.failure?.message);
    });
  });

  Deno.test(`${name} (fake): a stream cut off mid-line with exit 0 is not success`, async () => {
    await withTask(make, "truncated", ({ result }) => {
      assert.equal(result.status, "error");
      assert.equal(result.exitCode, 0);
      assert.equal(result.selfClaimedDone, false);
    });
  });

  Deno.test(`${name} (fake): never exits -> cancelled within the grace period, process group killed`, async () => {
    await withTask(make, "hang", async ({ result, elapsedMs, transcript }) => {
      assert.equal(result.status, "cancelled");
      assert.equal(result.failure?.code, "cancelled");
      assert.ok(elapsedMs < 1000 + 300 + 2500, `took ${elapsedMs}ms`);
      // The agent's grandchild (same process group) died with it.
      const pid = Number(/pid=(\d+)/.exec(transcript)?.[1]);
      assert.ok(pid > 0, transcript);
      assert.equal(await processGone(pid), true, `grandchild ${pid} still running`);
    }, { abortAfterMs: 1000 });
  });

  Deno.test(`${name} (fake): never exits -> timed_out at the budget (retryable)`, async () => {
    await withTask(make, "hang", ({ result, elapsedMs }) => {
      assert.equal(result.status, "timed_out");
      assert.equal(result.failure?.retryable, true);
      assert.ok(elapsedMs < 1000 + 300 + 2500, `took ${elapsedMs}ms`);
    }, { maxSeconds: 1 });
  });

  Deno.test(`${name} (fake): flooding output is bounded and not trusted`, async () => {
    await withTask(make, "flood", ({ result, transcript }) => {
      assert.notEqual(result.status, "ok");
      assert.ok(transcript.length <= 2 * 1024 * 1024 + 4096);
      assert.equal(result.transcript?.truncated, true);
    }, { maxSeconds: 3, maxOutputMb: 1 });
  });
}

Deno.test("codex/claude: a missing executable is a non-retryable config failure that names it, caught by preflight too", async () => {
  for (
    const b of [
      codexBackend({ executable: "/nonexistent/codex" }),
      claudeBackend({ executable: "/nonexistent/claude" }),
    ]
  ) {
    await withTask(() => b, "fix", ({ result }) => {
      assert.equal(result.status, "error");
      assert.equal(result.failure?.code, "config");
      assert.equal(result.failure?.retryable, false);
      assert.equal(result.failure?.message, `/nonexistent/${b.id}: no such file`);
    });
    const pre = await b.preflight?.();
    assert.equal(pre?.code, "config");
    assert.equal(pre?.message, `${b.id}: /nonexistent/${b.id}: no such file`);
  }
});
