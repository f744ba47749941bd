import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type AgentTask,
  commandBackend,
  fnBackend,
  WORKER_INPUT_JSON_SCHEMA,
  WorkerInputSchema,
} from "../../../adapters/backends/mod.ts";
import { captureTranscript, maskSecrets } from "../../../adapters/backends/transcript.ts";
import { claimsSayDone, workerInputFor } from "../../../adapters/backends/worker_input.ts";
import { readClaims } from "../../../adapters/backends/command_backend.ts";
import { createWorktree, removeWorktree } from "../../../adapters/worktree/mod.ts";
import { createRepo } from "../../golden/fixture_repos.ts";

function task(worktree: string, over: Partial<AgentTask> = {}): AgentTask {
  return {
    taskId: "cmd",
    attempt: 1,
    goal: "fix it",
    worktree,
    allowedRoots: ["src/**"],
    forbiddenPaths: ["tests/**"],
    maxSeconds: 20,
    maxOutputMb: 4,
    ...over,
  };
}

const ctx = () => ({ signal: new AbortController().signal, emit: () => {} });

Deno.test("command backend: gets the input contract on stdin and in VOUCH_TASK_FILE; last JSON line is its claims", async () => {
  const repo = await createRepo({ "src/a.txt": "a\n" }, "true");
  const root = await Deno.makeTempDir({ prefix: "vouch-cmd-" });
  try {
    const wt = await createWorktree({ repo: repo.dir, taskId: "cmd", attempt: 1, root });
    try {
      // The worker copies stdin and the task file into the worktree, then claims.
      const script = [
        "cat > stdin.json",
        'cp "$VOUCH_TASK_FILE" file.json',
        'echo "$VOUCH_TASK_FILE" > path.txt',
        "echo progress line",
        `echo '{"summary":"copied","done":true,"commands_run":["cat"],"risks":["none"],"extra":1}'`,
      ].join("; ");
      const r = await commandBackend({ argv: ["sh", "-c", script] }).run(task(wt.path), ctx());
      assert.equal(r.status, "ok", r.failure?.message);
      assert.equal(r.summary, "copied");
      assert.equal(r.selfClaimedDone, true);
      assert.deepEqual(r.commandsRun, ["cat"]);
      assert.deepEqual(r.risks, ["none"]);
      const stdin = JSON.parse(await Deno.readTextFile(join(wt.path, "stdin.json")));
      const file = JSON.parse(await Deno.readTextFile(join(wt.path, "file.json")));
      assert.deepEqual(stdin, file);
      const parsed = WorkerInputSchema.parse(stdin);
      assert.equal(parsed.repo_root, wt.path);
      assert.equal(parsed.network, "deny");
      assert.equal(parsed.secrets, "none");
      assert.deepEqual(parsed.forbidden_paths, ["tests/**"]);
      assert.deepEqual(parsed.must_return, [
        "summary",
        "diff",
        "tests_run",
        "commands_run",
        "risks",
        "files_changed",
      ]);
      // The task file lives in the worktree's git admin dir (outside the checkout) and is gone afterwards.
      const taskFile = (await Deno.readTextFile(join(wt.path, "path.txt"))).trim();
      assert.equal(taskFile, join(wt.gitDir, "vouch-task-1.json"));
      assert.equal(
        await Deno.stat(taskFile).then(() => true, () => false),
        false,
      );
    } finally {
      await removeWorktree(wt);
    }
  } finally {
    await repo.cleanup();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("command backend: non-zero exit is an error; invalid claims are a protocol issue; no claims is fine", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vouch-cmd2-" });
  try {
    const failing = await commandBackend({ argv: ["sh", "-c", "echo '{\"done\":true}'; exit 3"] })
      .run(task(dir), ctx());
    assert.equal(failing.status, "error");
    assert.equal(failing.failure?.code, "execution");
    assert.equal(failing.exitCode, 3);
    assert.equal(failing.selfClaimedDone, true); // a claim, recorded as such
    const invalid = await commandBackend({ argv: ["sh", "-c", 'echo \'{"done":"yes"}\''] })
      .run(task(dir), ctx());
    assert.equal(invalid.status, "ok");
    assert.equal(invalid.protocolIssues, 1);
    // A broken claims line claims nothing, whatever the exit code (it showed "claimed done: yes").
    assert.equal(invalid.selfClaimedDone, false);
    const broken = await commandBackend({ argv: ["sh", "-c", "echo '{not json'"] })
      .run(task(dir), ctx());
    assert.equal(broken.protocolIssues, 1);
    assert.equal(broken.selfClaimedDone, false);
    const plain = await commandBackend({ argv: ["sh", "-c", "echo just text"] }).run(
      task(dir),
      ctx(),
    );
    assert.equal(plain.status, "ok");
    assert.equal(plain.summary, "just text");
    assert.equal(plain.protocolIssues, 0);
    const missing = await commandBackend({ argv: ["/no/such/worker"] }).run(task(dir), ctx());
    assert.equal(missing.status, "error");
    // A missing program stays missing: a non-retryable config failure naming it.
    assert.equal(missing.failure?.code, "config");
    assert.equal(missing.failure?.retryable, false);
    assert.equal(missing.failure?.message, "/no/such/worker: no such file");
    const secretEnv = await commandBackend({ argv: ["true"], env: { API_TOKEN: "x" } }).run(
      task(dir),
      ctx(),
    );
    assert.equal(secretEnv.status, "error");
    assert.equal(secretEnv.failure?.code, "config");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("command backend: cancellation of a never-exiting worker completes within the grace period", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vouch-cmd3-" });
  try {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 200);
    const t0 = performance.now();
    const r = await commandBackend({
      argv: ["sh", "-c", "trap '' TERM; while :; do sleep 1; done"],
      graceMs: 300,
    }).run(task(dir), { signal: ac.signal, emit: () => {} });
    const ms = performance.now() - t0;
    assert.equal(r.status, "cancelled");
    assert.ok(ms < 200 + 300 + 2500, `took ${ms}ms`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("fn backend: ok, thrown error, timeout and cancellation even when the function ignores its signal", async () => {
  const dir = "/tmp";
  const ok = await fnBackend("f", (_t, c) => {
    c.emit({ kind: "message", text: "working" });
    return Promise.resolve({
      summary: "token=abcdef123456 done",
      patchText: "diff --git a/x b/x\n",
    });
  }).run(task(dir), ctx());
  assert.equal(ok.status, "ok");
  assert.equal(ok.selfClaimedDone, true);
  assert.equal(ok.summary, "token=[redacted:secret_assignment] done");
  assert.equal(new TextDecoder().decode(ok.patchText), "diff --git a/x b/x\n");
  assert.equal(ok.patch, undefined); // no base named: no UnverifiedPatch label
  const labelled = await fnBackend("f", () => Promise.resolve({ patchText: "d" }))
    .run(task(dir, { base: "a".repeat(40) }), ctx());
  assert.equal(labelled.patch?.kind, "unverified_patch");
  assert.equal(labelled.patch?.baseRevision, "a".repeat(40));
  assert.equal(labelled.patch?.backend, "f");
  assert.equal(labelled.patch?.task, "cmd");
  const thrown = await fnBackend("f", () => Promise.reject(new Error("kaput"))).run(
    task(dir),
    ctx(),
  );
  assert.equal(thrown.status, "error");
  assert.equal(thrown.failure?.code, "execution");
  assert.equal(thrown.failure?.retryable, false);
  const never = () => new Promise<never>(() => {});
  const t0 = performance.now();
  const timed = await fnBackend("f", never).run(task(dir, { maxSeconds: 0.2 }), ctx());
  assert.equal(timed.status, "timed_out");
  assert.equal(timed.failure?.retryable, true);
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 50);
  const cancelled = await fnBackend("f", never).run(task(dir), {
    signal: ac.signal,
    emit: () => {},
  });
  assert.equal(cancelled.status, "cancelled");
  assert.ok(performance.now() - t0 < 2000);
  const pre = new AbortController();
  pre.abort();
  const early = await fnBackend("f", () => {
    throw new Error("must not run");
  }).run(task(dir), { signal: pre.signal, emit: () => {} });
  assert.equal(early.status, "cancelled");
});

Deno.test("worker input: schema is strict, JSON Schema is exported, claims reading and 'done' claims", () => {
  const input = workerInputFor(task("/w"));
  assert.equal(WorkerInputSchema.safeParse({ ...input, network: "allow" }).success, false);
  assert.equal(WorkerInputSchema.safeParse({ ...input, surprise: 1 }).success, false);
  const schema = WORKER_INPUT_JSON_SCHEMA as {
    properties: Record<string, unknown>;
    required: string[];
  };
  for (
    const k of [
      "task_id",
      "goal",
      "repo_root",
      "allowed_roots",
      "forbidden_paths",
      "network",
      "secrets",
      "max_seconds",
      "max_output_mb",
      "must_return",
    ]
  ) {
    assert.ok(k in schema.properties, k);
    assert.ok(schema.required.includes(k), k);
  }
  const line = (text: string, unterminated = false) => ({
    number: 1,
    text,
    tooLong: false,
    unterminated,
  });
  assert.equal(readClaims([line('{"summary":"s"}'), line("")]).kind, "claims");
  assert.equal(readClaims([line("done!")]).kind, "none");
  const later = readClaims([line('{"summary":"s1"}'), line("bye"), line("")]);
  assert.equal(later.kind === "claims" ? later.claims.summary : null, "s1");
  const last = readClaims([line('{"summary":"first"}'), line('{"summary":"second"}')]);
  assert.equal(last.kind === "claims" ? last.claims.summary : null, "second");
  assert.equal(readClaims([line('{"summary":')]).kind, "invalid");
  assert.equal(readClaims([line('{"tests_run":"all"}')]).kind, "invalid");
  assert.equal(claimsSayDone({ status: "Done" }), true);
  assert.equal(claimsSayDone({ status: "partial" }), false);
  assert.equal(claimsSayDone({ done: false, status: "done" }), false);
});

Deno.test("transcript: masks secret-looking values and stays within its bound", async () => {
  const secrets = [
    "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "sk-ant-api03-abcdefghijklmnopqrstuv",
    "AKIAABCDEFGHIJKLMNOP",
    "Authorization: Bearer abcdefghijklmnop.qrstu",
    "DB_PASSWORD=hunter2hunter2",
    '"api_key": "zzzzzzzzzzzz"',
    "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----",
  ];
  for (const s of secrets) {
    const { text, masked } = maskSecrets(`before ${s} after`);
    assert.ok(masked > 0, s);
    assert.match(text, /\[redacted:/);
    assert.match(text, /^before /);
  }
  assert.equal(maskSecrets("plain text with tokens mentioned").masked, 0);
  const dir = await Deno.makeTempDir();
  try {
    const big = "y".repeat(3 * 1024 * 1024);
    const s = { head: big, tail: "", totalBytes: big.length, truncated: false, sha256: "sha256:x" };
    const ref = await captureTranscript({
      backend: "b",
      taskId: "t",
      attempt: 2,
      stdout: s,
      stderr: { ...s, head: "GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789" },
      dir,
      maxBytes: 64 * 1024,
    });
    assert.equal(ref.truncated, true);
    assert.ok(ref.bytes <= 64 * 1024);
    assert.equal(ref.path, join(dir, "t-2-b.transcript.txt"));
    assert.equal((await Deno.stat(ref.path!)).size, ref.bytes);
    assert.doesNotMatch(await Deno.readTextFile(ref.path!), /ghp_/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("fn backend: its emitted events are the transcript, masked and written to the transcript dir", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vouch-fn-tr-" });
  try {
    const r = await fnBackend("scripted", (_t, c) => {
      c.emit({ kind: "command", command: "deno test", exitCode: 1, status: "completed" });
      c.emit({
        kind: "message",
        text: "export NPM_TOKEN=npm_abcdefghijklmnopqrstuvwxyz0123456789",
      });
      return Promise.resolve({ summary: "fixed add()" });
    }).run(task(dir), { signal: new AbortController().signal, emit: () => {}, transcriptDir: dir });
    assert.equal(r.status, "ok");
    assert.ok(r.transcript !== null && r.transcript.path !== null);
    const text = await Deno.readTextFile(r.transcript!.path!);
    const kinds = text.trim().split("\n").map((l) => JSON.parse(l).kind);
    assert.deepEqual(kinds, ["command", "message", "message"]);
    assert.match(text, /fixed add\(\)/);
    assert.doesNotMatch(text, /npm_abc/);
    assert.ok(r.transcript!.masked >= 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("backends resolve, never reject: an unwritable transcript dir becomes an io error", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vouch-io-" });
  try {
    const bad = {
      signal: new AbortController().signal,
      emit: () => {},
      transcriptDir: "/dev/null/x",
    };
    const cmd = await commandBackend({ argv: ["true"] }).run(task(dir), bad);
    assert.equal(cmd.status, "error");
    assert.equal(cmd.failure?.code, "io");
    assert.match(cmd.failure?.message ?? "", /^Cannot run command: /);
    const fn = await fnBackend("f", () => Promise.resolve({})).run(task(dir), bad);
    assert.equal(fn.status, "error");
    assert.equal(fn.failure?.code, "io");
    assert.equal(fn.failure?.retryable, false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
