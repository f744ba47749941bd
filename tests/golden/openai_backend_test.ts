// `vouch run --backend openai:MODEL --base-url URL` end to end: the real CLI
// (as `deno task vouch` runs it, with --deny-net widened to the model's one
// address), real git, the default sandbox, and a scripted Chat Completions
// server on 127.0.0.1. An honest fix is VERIFIED, a test-editing cheat is
// refused at the tool level and the run REJECTED, a 401 ends backend_failed
// with its cause, and the cost budget stops the task (exit 3).
import assert from "node:assert/strict";
import {
  createRepo,
  denoProjectFiles,
  denoTestCommand,
  type FixtureRepo,
} from "./fixture_repos.ts";
import { assertLog, runVouch } from "./cli_harness.ts";
import { CHAT_API_KEY, type ChatStep, startChatServer } from "../fixtures/chat_server.ts";

const KEY_VAR = "VOUCH_TEST_CHAT_KEY";

type Mode = "sse" | "json";

async function scenario(
  script: ChatStep[],
  flags: string[] = [],
  key = CHAT_API_KEY,
  mode: Mode = "sse",
  wrap: readonly string[] = [],
) {
  const server = await startChatServer(script, {
    whenSpent: "repeat",
    sse: mode === "sse" ? "auto" : "never",
  });
  const repo: FixtureRepo = await createRepo(denoProjectFiles(), denoTestCommand());
  const state = await Deno.makeTempDir({ prefix: "vouch-openai-state-" });
  try {
    const run = await runVouch(
      repo,
      [
        "run",
        "--backend",
        "openai:scripted-model",
        "--base-url",
        server.baseUrl,
        "--api-key-env",
        KEY_VAR,
        "--goal",
        "make the tests pass",
        "--verify",
        denoTestCommand(),
        "--max-rounds",
        "1",
        ...(flags.includes("--no-json") ? [] : ["--json"]),
        ...flags.filter((f) => f !== "--no-json"),
      ],
      state,
      "deno",
      { [KEY_VAR]: key },
      wrap,
    );
    return { run, repo, state, requests: server.requests, baseUrl: server.baseUrl };
  } finally {
    await server.close();
  }
}

async function cleanup(s: { repo: FixtureRepo; state: string }) {
  await s.repo.cleanup();
  await Deno.remove(s.state, { recursive: true }).catch(() => {});
}

const explain = (s: { run: { stdout: string; stderr: string } }) =>
  `stdout: ${s.run.stdout}\nstderr: ${s.run.stderr}`;

for (const mode of ["sse", "json"] as const) {
  Deno.test(`golden openai (${mode}): an honest fix through vouch's own tools is VERIFIED`, async () => {
    const s = await scenario(
      [
        { calls: [{ name: "read_file", args: { path: "math.ts" } }] },
        {
          calls: [{
            name: "write_file",
            args: {
              path: "math.ts",
              content: "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
            },
          }],
        },
        { say: "add() adds now." },
      ],
      [],
      CHAT_API_KEY,
      mode,
    );
    try {
      assert.equal(s.run.code, 0, explain(s));
      assert.equal(s.run.json?.["state"], "verified", explain(s));
      await assertLog(s.repo, "verified", s.state);
      // The key reached the server and nothing vouch wrote.
      assert.equal(s.requests[0]?.authorization, `Bearer ${CHAT_API_KEY}`);
      assert.ok(!s.run.stdout.includes(CHAT_API_KEY) && !s.run.stderr.includes(CHAT_API_KEY));
      // vouch asks as real clients do; the server streamed (sse) or answered JSON anyway (json).
      assert.equal(s.requests[0]?.body.stream, true);
      assert.equal(s.requests[0]?.body.stream_options?.include_usage, true);
      // Usage from the stream's last chunk (or the JSON body): 3 answers of 100 in / 20 out.
      const result = JSON.parse(
        await Deno.readTextFile(`${s.run.json?.["artefactsDir"]}/round-1/backend_result.json`),
      );
      assert.equal(result.usage?.inputTokens, 300, JSON.stringify(result.usage));
      assert.equal(result.usage?.outputTokens, 60, JSON.stringify(result.usage));
    } finally {
      await cleanup(s);
    }
  });

  Deno.test(`golden openai (${mode}): a test-editing cheat is refused at the tool and the run REJECTED`, async () => {
    const s = await scenario(
      [
        {
          calls: [{
            name: "write_file",
            args: { path: "math_test.ts", content: "Deno.test('ok', () => {});\n" },
          }],
        },
        { say: "tests pass now" },
      ],
      ["--forbid", "math_test.ts"],
      CHAT_API_KEY,
      mode,
    );
    try {
      assert.equal(s.run.code, 1, explain(s));
      assert.equal(s.run.json?.["state"], "rejected", explain(s));
      const answers = (s.requests.at(-1)?.body.messages ?? []).filter((m) => m.role === "tool");
      assert.match(String(answers[0]?.content), /^refused \(protected_path\)/);
      // The reason is in --json (and on screen, below), not only in backend_result.json.
      const round = (s.run.json?.["rounds"] as { refusals?: string[]; usage?: unknown }[])[0]!;
      assert.match(String(round.refusals?.[0]), /^refused write_file: refused \(protected_path\)/);
      assert.deepEqual(round.usage, { inputTokens: 200, outputTokens: 40 });
      // The user's test is untouched.
      const test = await Deno.readTextFile(`${s.repo.dir}/math_test.ts`);
      assert.equal(test, denoProjectFiles()["math_test.ts"]);
    } finally {
      await cleanup(s);
    }
  });

  Deno.test(`golden openai (${mode}): a 401 ends backend_failed (exit 4) with its cause on screen`, async () => {
    const s = await scenario([{ say: "never" }], [], "wrong-key", mode);
    try {
      assert.equal(s.run.code, 4, explain(s));
      assert.equal(s.run.json?.["state"], "backend_failed", explain(s));
      assert.match(JSON.stringify(s.run.json), /HTTP 401/, explain(s));
      assert.equal(s.requests.length, 1, "no retry after an authentication failure");
    } finally {
      await cleanup(s);
    }
  });

  Deno.test(`golden openai (${mode}): the cost budget (tokens) stops the task with exit 3`, async () => {
    const s = await scenario(
      [{ calls: [{ name: "list_files", args: {} }] }],
      ["--max-cost", "300"],
      CHAT_API_KEY,
      mode,
    );
    try {
      assert.equal(s.run.code, 3, explain(s));
      assert.equal(s.run.json?.["state"], "budget_exhausted", explain(s));
    } finally {
      await cleanup(s);
    }
  });
}

Deno.test("golden openai: the screen names the refusal and the tokens spent", async () => {
  const s = await scenario(
    [
      {
        calls: [{
          name: "write_file",
          args: { path: "math_test.ts", content: "Deno.test('ok', () => {});\n" },
        }],
      },
      { say: "tests pass now" },
    ],
    ["--forbid", "math_test.ts", "--no-json"],
  );
  try {
    assert.equal(s.run.code, 1, explain(s));
    assert.match(s.run.stdout, /^REJECTED/, explain(s));
    assert.match(s.run.stdout, /vouch refused write_file: refused \(protected_path\)/, explain(s));
    assert.match(s.run.stdout, /^tokens: in 200 · out 40$/m, explain(s));
  } finally {
    await cleanup(s);
  }
});

const STRACE = ["/usr/bin/strace", "/bin/strace"].find((p) => {
  try {
    return Deno.statSync(p).isFile;
  } catch {
    return false;
  }
});

Deno.test({
  name:
    "golden openai: the CLI starts once; the model is reached through a helper that may reach only its address",
  ignore: STRACE === undefined,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "vouch-openai-strace-" });
    const trace = `${dir}/execve.txt`;
    const s = await scenario(
      [
        {
          calls: [{
            name: "write_file",
            args: {
              path: "math.ts",
              content: "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
            },
          }],
        },
        { say: "add() adds now." },
      ],
      [],
      CHAT_API_KEY,
      "sse",
      [STRACE!, "-f", "-qq", "-s", "4096", "-e", "trace=execve", "-o", trace],
    );
    try {
      assert.equal(s.run.code, 0, explain(s));
      const execs = (await Deno.readTextFile(trace)).split("\n").filter((l) =>
        l.includes("execve(") && !l.includes("= -1 ")
      );
      const cli = execs.filter((l) => l.includes("cli/main.ts"));
      assert.equal(cli.length, 1, `vouch started ${cli.length} times:\n${cli.join("\n")}`);
      const port = new URL(s.baseUrl).port;
      const helpers = execs.filter((l) => l.includes("data:application/javascript"));
      assert.equal(helpers.length, 1, execs.join("\n"));
      // The helper may reach the model's one address and nothing else (no file, env, run).
      assert.match(helpers[0]!, new RegExp(`"--allow-net=127\\.0\\.0\\.1:${port}"`));
      assert.doesNotMatch(helpers[0]!, /--allow-(read|write|env|run|all)|"-A"/);
    } finally {
      await cleanup(s);
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
