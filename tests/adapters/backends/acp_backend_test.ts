// The ACP backend against a self-written agent (tests/fixtures/acp_agent.mjs)
// speaking raw JSON-RPC over stdio: an honest turn served through vouch's fs
// and terminal methods, writes outside the worktree and into protected tests
// refused at the protocol level, a storm of permission requests, malformed
// JSON-RPC and unknown methods, a turn that never ends, an agent that dies.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { acpBackend, type PermissionQuestion } from "../../../adapters/backends/acp_backend.ts";
import type { AcpAuthChoice } from "../../../adapters/backends/acp_presets.ts";
import type { AgentTask, BackendEvent, BackendResult } from "../../../adapters/backends/types.ts";
import { NODE } from "../../golden/cli_harness.ts";

const AGENT = fileURLToPath(new URL("../../fixtures/acp_agent.mjs", import.meta.url));

interface Played {
  readonly result: BackendResult;
  readonly events: BackendEvent[];
  readonly report: { what: string; value: Record<string, unknown> | number | boolean }[];
  readonly files: Map<string, string | null>;
  readonly ms: number;
}

async function play(
  mode: string,
  extra: {
    maxSeconds?: number;
    outside?: string;
    askHuman?: (q: PermissionQuestion) => Promise<boolean>;
    env?: Record<string, string>;
    auth?: AcpAuthChoice[];
  } = {},
) {
  const dir = mkdtempSync(join(tmpdir(), "vouch-acp-"));
  mkdirSync(join(dir, "src"));
  mkdirSync(join(dir, "test"));
  writeFileSync(join(dir, "src/add.js"), "export const add = (a, b) => a - b;\n");
  writeFileSync(join(dir, "test/add.test.js"), "assert(add(2, 3) === 5);\n");
  const reportFile = join(mkdtempSync(join(tmpdir(), "vouch-acp-report-")), "report.jsonl");
  const events: BackendEvent[] = [];
  const task: AgentTask = {
    taskId: "t-acp",
    attempt: 0,
    goal: "make add add",
    worktree: dir,
    allowedRoots: ["**"],
    forbiddenPaths: ["test/**"],
    maxSeconds: extra.maxSeconds ?? 30,
    maxOutputMb: 10,
  };
  const started = Date.now();
  try {
    const result = await acpBackend({
      argv: [NODE!, AGENT],
      env: {
        VOUCH_ACP_MODE: mode,
        VOUCH_ACP_REPORT: reportFile,
        ...(extra.outside !== undefined ? { VOUCH_ACP_OUTSIDE: extra.outside } : {}),
        ...(extra.env ?? {}),
      },
      ...(extra.auth !== undefined ? { auth: extra.auth } : {}),
      cancelGraceMs: 500,
      ...(extra.askHuman !== undefined ? { askHuman: extra.askHuman } : {}),
    }).run(task, { signal: new AbortController().signal, emit: (e) => events.push(e) });
    const report = existsSync(reportFile)
      ? readFileSync(reportFile, "utf8").trim().split("\n").filter((l) => l !== "").map((l) =>
        JSON.parse(l)
      )
      : [];
    const files = new Map<string, string | null>();
    for (const p of ["src/add.js", "test/add.test.js"]) {
      files.set(p, existsSync(join(dir, p)) ? readFileSync(join(dir, p), "utf8") : null);
    }
    return { result, events, report, files, ms: Date.now() - started } as Played;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(join(reportFile, ".."), { recursive: true, force: true });
  }
}

const entry = (p: Played, what: string) => p.report.find((r) => r.what === what)?.value;

Deno.test({
  name: "acp backend: an honest turn reads, asks, writes and runs a terminal through vouch",
  ignore: NODE === null,
  fn: async () => {
    const p = await play("honest");
    assert.equal(p.result.status, "ok", JSON.stringify(p.result.failure));
    assert.equal(p.result.selfClaimedDone, true);
    assert.equal(p.result.summary, "Looking. Fixed add.");
    assert.equal(p.files.get("src/add.js"), "export const add = (a, b) => a + b;\n");
    const read = entry(p, "read") as { result: { content: string } };
    assert.equal(read.result.content, "export const add = (a, b) => a - b;\n");
    const perm = entry(p, "permission") as { result: { outcome: { optionId: string } } };
    assert.equal(perm.result.outcome.optionId, "yes");
    const exit = entry(p, "exit") as { result: { exitCode: number } };
    assert.equal(exit.result.exitCode, 0);
    const output = entry(p, "output") as { result: { output: string } };
    assert.equal(output.result.output, "export const add = (a, b) => a + b;\n");
    assert.deepEqual(p.result.commandsRun, ["cat src/add.js"]);
    assert.ok(p.events.some((e) => e.kind === "file_change" && e.path === "src/add.js"));
    assert.ok(p.events.some((e) => e.kind === "tool" && e.name === "Read src/add.js"));
    assert.ok((p.result.transcript?.bytes ?? 0) > 0);
  },
});

Deno.test({
  name:
    "acp backend: writes outside the worktree or into protected tests are refused at the protocol level",
  ignore: NODE === null,
  fn: async () => {
    const outsideDir = mkdtempSync(join(tmpdir(), "vouch-acp-outside-"));
    const outside = join(outsideDir, "planted.txt");
    try {
      const p = await play("outside", { outside });
      assert.equal(p.result.status, "ok");
      assert.equal(existsSync(outside), false);
      for (const what of ["outside_write", "dotdot_write", "test_write"]) {
        const r = entry(p, what) as { error?: { message: string } };
        assert.ok(r.error !== undefined, `${what} must be a JSON-RPC error`);
        assert.match(r.error.message + JSON.stringify(r.error), /refused by vouch/);
      }
      const perm = entry(p, "test_permission") as { result: { outcome: { optionId: string } } };
      assert.equal(perm.result.outcome.optionId, "no");
      const fetchPerm = entry(p, "fetch_permission") as {
        result: { outcome: { optionId: string } };
      };
      assert.equal(fetchPerm.result.outcome.optionId, "no");
      assert.equal(p.files.get("test/add.test.js"), "assert(add(2, 3) === 5);\n");
      assert.equal(p.result.risks.length, 5, JSON.stringify(p.result.risks));
    } finally {
      rmSync(outsideDir, { recursive: true, force: true });
    }
  },
});

Deno.test({
  name: "acp backend: a storm of permission requests is answered, then refused past the bound",
  ignore: NODE === null,
  fn: async () => {
    // 200 round trips through the ACP client: a bound that rules out a hang, not a speed (the
    // default 30 s ran out at load 45 on 2 cores).
    const p = await play("storm", { maxSeconds: 300 });
    assert.equal(p.result.status, "ok", JSON.stringify(p.result.failure));
    assert.equal(entry(p, "allowed"), 200);
    assert.equal(p.result.risks.length, 200);
  },
});

Deno.test({
  name: "acp backend: malformed JSON-RPC and unknown methods do not derail the turn",
  ignore: NODE === null,
  fn: async () => {
    const p = await play("malformed");
    assert.equal(p.result.status, "ok", JSON.stringify(p.result.failure));
    const unknown = entry(p, "unknown") as { error?: { code: number } };
    assert.equal(unknown.error?.code, -32601);
    assert.equal(p.files.get("src/add.js"), "export const add = (a, b) => a + b;\n");
  },
});

Deno.test({
  name: "acp backend: a turn that never ends is cancelled at the time limit (session/cancel)",
  ignore: NODE === null,
  fn: async () => {
    const p = await play("hang", { maxSeconds: 2 });
    assert.equal(p.result.status, "timed_out");
    assert.equal(p.result.failure?.code, "timeout");
    assert.equal(entry(p, "cancel"), true, "the agent was sent session/cancel");
    assert.ok(p.ms < 8000, `took ${p.ms} ms`);
  },
});

Deno.test({
  name: "acp backend: an agent that dies mid-turn is a failed round with the cause",
  ignore: NODE === null,
  fn: async () => {
    const p = await play("die");
    assert.equal(p.result.status, "error");
    assert.equal(p.result.failure?.code, "protocol");
    assert.match(p.result.failure?.message ?? "", /exited \(code 3\)/);
  },
});

Deno.test("acp backend: a missing agent program is a configuration failure", async () => {
  const dir = mkdtempSync(join(tmpdir(), "vouch-acp-"));
  try {
    const r = await acpBackend({ argv: ["/nonexistent/acp-agent"] }).run({
      taskId: "t",
      attempt: 0,
      goal: "g",
      worktree: dir,
      allowedRoots: ["**"],
      forbiddenPaths: [],
      maxSeconds: 10,
      maxOutputMb: 1,
    }, { signal: new AbortController().signal, emit: () => {} });
    assert.equal(r.status, "error");
    assert.equal(r.failure?.code, "config");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Deno.test({
  name: "acp backend: a write the policy sends to a human is asked, and refused with no human",
  ignore: NODE === null,
  fn: async () => {
    const optionOf = (p: Played) =>
      (entry(p, "lockfile_permission") as { result: { outcome: { optionId: string } } })
        .result.outcome.optionId;
    const alone = await play("sensitive");
    assert.equal(optionOf(alone), "no");
    const asked: PermissionQuestion[] = [];
    const yes = await play("sensitive", {
      askHuman: (q) => (asked.push(q), Promise.resolve(true)),
    });
    assert.equal(optionOf(yes), "yes");
    assert.deepEqual(asked.map((q) => [q.kind, q.paths]), [["edit", ["package-lock.json"]]]);
    assert.match(asked[0]!.detail, /lockfile; the policy asks a human/);
    const no = await play("sensitive", { askHuman: () => Promise.resolve(false) });
    assert.equal(optionOf(no), "no");
  },
});

Deno.test({
  name:
    "acp backend: usage_update and the prompt answer's usage feed the round's usage (cost in USD)",
  ignore: NODE === null,
  fn: async () => {
    const p = await play("usage");
    assert.equal(p.result.status, "ok", JSON.stringify(p.result.failure));
    assert.deepEqual(p.result.usage, {
      inputTokens: 1000,
      cachedInputTokens: 300,
      outputTokens: 200,
      costUsd: 0.25,
    });
    // Shown live: the usage_update as it came, then the turn's totals.
    const live = p.events.filter((e) => e.kind === "usage");
    assert.ok(live.length >= 2, JSON.stringify(live));
    const only = await play("usage", { env: { VOUCH_ACP_NO_PROMPT_USAGE: "1" } });
    assert.deepEqual(only.result.usage, { inputTokens: 1500, costUsd: 0.25 });
    const none = await play("honest");
    assert.deepEqual(none.result.usage, {});
  },
});

Deno.test({
  name: "acp backend: authenticate is called with the method whose key variable is forwarded",
  ignore: NODE === null,
  fn: async () => {
    const auth = [{ methodId: "gemini-api-key", whenSet: ["VOUCH_TEST_PICK_METHOD"] }];
    const p = await play("auth", { env: { VOUCH_TEST_PICK_METHOD: "k" }, auth });
    assert.equal(p.result.status, "ok", JSON.stringify(p.result.failure));
    assert.equal(entry(p, "authenticate"), "gemini-api-key");
    // Without the key, vouch does not authenticate and the agent's refusal is the failure.
    const without = await play("auth", { auth });
    assert.equal(without.result.status, "error");
    assert.equal(entry(without, "authenticate"), undefined);
    assert.match(String(without.result.failure?.message), /session\/new failed/);
  },
});

Deno.test({
  name:
    "acp backend: an agent that abandons its turn after a refusal is a round to judge, not cancelled",
  ignore: NODE === null,
  fn: async () => {
    const p = await play("abandon");
    const perm = entry(p, "abandon_permission") as { result: { outcome: { optionId: string } } };
    assert.equal(perm.result.outcome.optionId, "no");
    assert.equal(p.result.status, "ok", JSON.stringify(p.result.failure));
    assert.equal(p.result.selfClaimedDone, false);
    assert.match(p.result.summary, /stopped its turn after vouch refused: permission edit/);
    assert.equal(p.files.get("test/add.test.js"), "assert(add(2, 3) === 5);\n");
  },
});

/** The agent's `process`/`initialize` lines in its report file. */
function startsIn(reportFile: string): { processes: number; initializes: number } {
  const lines = existsSync(reportFile)
    ? readFileSync(reportFile, "utf8").trim().split("\n").filter((l) => l !== "").map((l) =>
      JSON.parse(l) as { what: string }
    )
    : [];
  return {
    processes: lines.filter((l) => l.what === "process").length,
    initializes: lines.filter((l) => l.what === "initialize").length,
  };
}

Deno.test({
  name:
    "acp backend: preflight starts nothing; startTask starts the agent once and that process serves rounds 1 and 2",
  ignore: NODE === null,
  fn: async () => {
    const dir = mkdtempSync(join(tmpdir(), "vouch-acp-start-"));
    const reportFile = join(dir, "report.jsonl");
    const worktree = join(dir, "wt");
    mkdirSync(join(worktree, "src"), { recursive: true });
    writeFileSync(join(worktree, "src/add.js"), "export const add = (a, b) => a - b;\n");
    const task: AgentTask = {
      taskId: "t-start",
      attempt: 1,
      goal: "make add add",
      worktree,
      allowedRoots: ["**"],
      forbiddenPaths: [],
      maxSeconds: 30,
      maxOutputMb: 10,
    };
    const backend = acpBackend({
      argv: [NODE!, AGENT],
      env: { VOUCH_ACP_MODE: "session", VOUCH_ACP_REPORT: reportFile },
    });
    const ctx = { signal: new AbortController().signal, emit: () => {} };
    try {
      assert.equal(await backend.preflight?.(), null);
      assert.deepEqual(startsIn(reportFile), { processes: 0, initializes: 0 }, "preflight ran it");
      assert.equal(await backend.startTask?.(task, new AbortController().signal), null);
      assert.deepEqual(startsIn(reportFile), { processes: 1, initializes: 1 });
      const r1 = await backend.run(task, ctx);
      assert.equal(r1.status, "ok", JSON.stringify(r1.failure));
      const r2 = await backend.run({ ...task, attempt: 2, feedback: "again" }, ctx);
      assert.equal(r2.status, "ok", JSON.stringify(r2.failure));
      assert.match(r2.summary, /prompt 2 of session s1/);
      // One process, one initialize, for the start and both rounds.
      assert.deepEqual(startsIn(reportFile), { processes: 1, initializes: 1 });
    } finally {
      await backend.endTask?.(task.taskId);
      rmSync(dir, { recursive: true, force: true });
    }
  },
});

Deno.test("acp backend: a program that does not speak ACP is found by startTask, in its words", async () => {
  const backend = acpBackend({ argv: ["/bin/true"], startTimeoutMs: 10_000 });
  assert.equal(await backend.preflight?.(), null, "a file that exists passes the static check");
  const dir = mkdtempSync(join(tmpdir(), "vouch-acp-true-"));
  try {
    const why = await backend.startTask?.(
      { taskId: "t", worktree: dir, allowedRoots: ["**"], forbiddenPaths: [] },
      new AbortController().signal,
    );
    assert.deepEqual(why, {
      code: "config",
      message: "acp: true exited (code 0) before answering initialize",
      retryable: false,
    });
    assert.equal(
      (await acpBackend({ argv: ["no-such-acp-agent"] }).preflight?.())?.message,
      "acp: no-such-acp-agent: not found on PATH",
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
