// Status decisions of the codex/claude runner beyond the fakes' modes: the
// exit code only corroborates the stream, and garbage streams are bounded.
import assert from "node:assert/strict";
import { join } from "node:path";
import { type AgentTask, claudeBackend, codexBackend } from "../../../adapters/backends/mod.ts";
import { MAX_PROTOCOL_ISSUES } from "../../../adapters/backends/agent_cli.ts";

async function withScript(body: string, fn: (exe: string, dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "vouch-cli-" });
  try {
    const exe = join(dir, "agent");
    await Deno.writeTextFile(exe, `#!/bin/sh\ncat > /dev/null\n${body}\n`);
    await Deno.chmod(exe, 0o755);
    await fn(exe, dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const task = (dir: string): AgentTask => ({
  taskId: "t",
  attempt: 1,
  goal: "g",
  worktree: dir,
  allowedRoots: [],
  forbiddenPaths: [],
  maxSeconds: 20,
  maxOutputMb: 4,
});
const ctx = () => ({ signal: new AbortController().signal, emit: () => {} });

Deno.test("codex: a successful stream with a non-zero exit is a protocol error; a failed stream with exit 0 is an error", async () => {
  const ok = `echo '{"type":"turn.started"}'; echo '{"type":"turn.completed"}'`;
  await withScript(`${ok}; exit 3`, async (exe, dir) => {
    const r = await codexBackend({ executable: exe }).run(task(dir), ctx());
    assert.equal(r.status, "error");
    assert.equal(r.failure?.code, "protocol");
    assert.equal(r.exitCode, 3);
  });
  await withScript(
    `echo '{"type":"turn.failed","error":{"message":"x"}}'; exit 0`,
    async (exe, dir) => {
      const r = await codexBackend({ executable: exe }).run(task(dir), ctx());
      assert.equal(r.status, "error");
      assert.equal(r.failure?.code, "execution");
      assert.equal(r.exitCode, 0);
    },
  );
  await withScript("exit 0", async (exe, dir) => {
    const r = await codexBackend({ executable: exe }).run(task(dir), ctx());
    assert.equal(r.status, "error");
    assert.match(r.failure?.message ?? "", /without turn.completed/);
  });
});

Deno.test("claude: a success result from an exit-1 process is a protocol error", async () => {
  await withScript(
    `echo '{"type":"result","subtype":"success","is_error":false,"num_turns":2,"result":"ok"}'; exit 1`,
    async (exe, dir) => {
      const r = await claudeBackend({ executable: exe }).run(task(dir), ctx());
      assert.equal(r.status, "error");
      assert.equal(r.failure?.code, "protocol");
    },
  );
});

Deno.test("agent streams: more malformed lines than the bound make the run a protocol error", async () => {
  await withScript(
    `i=0; while [ $i -lt ${
      MAX_PROTOCOL_ISSUES + 5
    } ]; do echo garbage; i=$((i+1)); done; echo '{"type":"turn.completed"}'`,
    async (exe, dir) => {
      const events: string[] = [];
      const r = await codexBackend({ executable: exe }).run(task(dir), {
        signal: new AbortController().signal,
        emit: (e) => events.push(e.kind === "protocol" ? e.code : e.kind),
      });
      assert.equal(r.status, "error");
      assert.equal(r.failure?.code, "protocol");
      assert.ok(events.includes("too_many_issues"));
      assert.ok(events.filter((e) => e === "not_json").length <= MAX_PROTOCOL_ISSUES + 1);
    },
  );
});
