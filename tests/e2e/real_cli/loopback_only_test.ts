// "No traffic leaves loopback": the real CLIs, run with exactly the argv and
// environment vouch's codex/claude backends build (quiet overrides, telemetry
// and update checks off), under `strace -f -e trace=connect`, doing a full
// task against the scripted model server. Every connect() must go to
// 127.0.0.1 / ::1 or a unix socket; a DNS lookup or a call home would show up
// as a connect() to another address.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { type AgentBackend, claudeBackend, codexBackend } from "../../../adapters/backends/mod.ts";
import { SCRIPTED_API_KEY, startModelServer } from "../../fixtures/model_server/mod.ts";
import { AGENT_CLI_BIN, CODEX_KEY_VAR, CODEX_MODEL, REAL_CLIS } from "./_harness.ts";

const STRACE = ["/usr/bin/strace", "/bin/strace"].find((p) => existsSync(p)) ?? null;
if (STRACE === null) console.log("real_cli: SKIP loopback tests: strace is not installed");

/** Non-loopback destinations in an strace `connect` log. */
function foreignConnects(log: string): string[] {
  return log.split("\n").filter((l) => l.includes("connect(")).filter((l) => {
    if (l.includes("AF_UNIX")) return false;
    if (l.includes("AF_INET6")) return !/inet_pton\(AF_INET6, "::1"/.test(l);
    if (l.includes("AF_INET")) return !/inet_addr\("127\.0\.0\.1"\)/.test(l);
    return !l.includes("AF_NETLINK");
  });
}

async function tracedRun(
  make: (executable: string, env: Record<string, string>, dir: string) => AgentBackend,
  real: string,
  script: Parameters<typeof startModelServer>[0],
): Promise<{ log: string; loopbackConnects: number; status: string; requests: number }> {
  const dir = await Deno.makeTempDir({ prefix: "vouch-loopback-" });
  const server = await startModelServer(script);
  try {
    const work = `${dir}/work`;
    await Deno.mkdir(work);
    await Deno.mkdir(`${dir}/home`);
    await Deno.writeTextFile(`${work}/a.txt`, "old\n");
    const wrapper = `${dir}/traced`;
    await Deno.writeTextFile(
      wrapper,
      `#!/bin/sh\nexec ${STRACE} -f -qq -e trace=connect -o ${dir}/connect.log ${real} "$@"\n`,
    );
    await Deno.chmod(wrapper, 0o755);
    const env: Record<string, string> = { SCRIPTED_URL: server.url };
    const result = await make(wrapper, env, dir).run({
      taskId: "t",
      attempt: 1,
      goal: "change a.txt",
      worktree: work,
      allowedRoots: [],
      forbiddenPaths: [],
      maxSeconds: 60,
      maxOutputMb: 8,
    }, { signal: new AbortController().signal, emit: () => {} });
    const log = await Deno.readTextFile(`${dir}/connect.log`);
    const loopbackConnects = log.split("\n").filter((l) => l.includes('"127.0.0.1"')).length;
    return {
      log,
      loopbackConnects,
      status: `${result.status} ${result.failure?.message ?? ""}`,
      requests: server.requests.length,
    };
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

Deno.test({
  name: "claude (real): a whole task connects to loopback only (strace)",
  ignore: !REAL_CLIS.claude || STRACE === null,
  fn: async () => {
    const r = await tracedRun(
      (executable, env, dir) =>
        claudeBackend({
          executable,
          home: `${dir}/home`,
          env: { ANTHROPIC_BASE_URL: env.SCRIPTED_URL!, ANTHROPIC_API_KEY: SCRIPTED_API_KEY },
          passEnv: ["ANTHROPIC_API_KEY"],
        }),
      `${AGENT_CLI_BIN}/claude`,
      [
        { calls: [{ name: "Bash", input: { command: "echo new > a.txt", description: "edit" } }] },
        { text: "done" },
      ],
    );
    assert.match(r.status, /^ok/, r.status);
    assert.ok(r.requests >= 2 && r.loopbackConnects >= 1, r.log);
    assert.deepEqual(foreignConnects(r.log), []);
  },
});

Deno.test({
  name: "codex (real): a whole task connects to loopback only (strace)",
  ignore: !REAL_CLIS.codex || STRACE === null,
  fn: async () => {
    const r = await tracedRun(
      (executable, env, dir) => {
        Deno.mkdirSync(`${dir}/codex`, { recursive: true });
        Deno.writeTextFileSync(
          `${dir}/codex/config.toml`,
          [
            `model = "${CODEX_MODEL}"`,
            'model_provider = "scripted"',
            "[model_providers.scripted]",
            'name = "scripted"',
            `base_url = "${env.SCRIPTED_URL}/v1"`,
            `env_key = "${CODEX_KEY_VAR}"`,
            'wire_api = "responses"',
            "request_max_retries = 0",
            "",
          ].join("\n"),
        );
        return codexBackend({
          executable,
          home: `${dir}/home`,
          env: { CODEX_HOME: `${dir}/codex`, [CODEX_KEY_VAR]: SCRIPTED_API_KEY },
          passEnv: [CODEX_KEY_VAR],
        });
      },
      `${AGENT_CLI_BIN}/codex`,
      [
        { calls: [{ name: "exec_command", input: { cmd: "echo new > a.txt" } }] },
        { text: "done" },
      ],
    );
    assert.match(r.status, /^ok/, r.status);
    assert.ok(r.requests >= 2 && r.loopbackConnects >= 1, r.log);
    assert.deepEqual(foreignConnects(r.log), []);
  },
});

Deno.test("loopback check: a connect to another address is caught", () => {
  const log = [
    '1 connect(3, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("160.79.104.10")}, 16) = 0',
    '1 connect(4, {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("127.0.0.1")}, 16) = 0',
    '1 connect(5, {sa_family=AF_UNIX, sun_path="/run/x"}, 110) = 0',
  ].join("\n");
  assert.equal(foreignConnects(log).length, 1);
});
