/**
 * Issue #21's scenarios, written once and played through every agent path:
 * the real ACP agents (claude-code-acp, codex-acp, gemini-cli, qwen-code) and
 * vouch's native `openai:` loop, each against its scripted model server on
 * 127.0.0.1 speaking its real wire format. A scenario is a list of abstract
 * {@linkcode Act}s (run a shell line, edit a file, say something); each
 * {@linkcode AgentPath} turns them into the tool calls its agent offers
 * (`mcp__acp__Edit`, `apply_patch`, `replace`, `edit`, `write_file`, ...), so
 * the same scenario drives each agent's own tools.
 *
 * - {@linkcode cheatScenario}: issue #19 through the agent: it skips the
 *   failing test instead of fixing the code; no flag, no contract
 *   (`--verify "node --test"`); REJECTED with the oracle's words on screen
 *   and in `--json`.
 * - {@linkcode workScenario}: in one run (one agent start-up, up to three
 *   rounds in one live session): a shell line naming a worktree path runs and
 *   its output reaches the model; a write to a protected file is refused with
 *   the reason on screen and in `--json`; the next round continues the
 *   session; the honest fix is VERIFIED; the usage is counted.
 *
 * @module
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { CHAT_API_KEY, type ChatEntry, startChatServer } from "../../fixtures/chat_server.ts";
import {
  GEMINI_API_KEY,
  type GeminiEntry,
  startGeminiServer,
} from "../../fixtures/gemini_server.ts";
import type { ScriptEntry, TurnContext } from "../../fixtures/model_server/mod.ts";
import {
  AGENT_CLI_BIN,
  explain,
  ORACLE_PROJECT,
  type RealCliRun,
  runRealCli,
  type ScenarioOptions,
} from "./_harness.ts";

/** One abstract step of the scripted model. */
export type Act =
  | { readonly shell: string }
  /** Replace the unique line `from` of `path` by `to` (the file then reads `content`). */
  | { readonly edit: string; readonly from: string; readonly to: string; readonly content: string }
  | { readonly say: string };

/** What an agent path's server needs for one run. */
interface Served {
  /** The script of the harness's Anthropic / Responses server (claude, codex), else []. */
  readonly script: readonly ScriptEntry[];
  readonly options: Partial<ScenarioOptions>;
  /** The JSON bodies of the model requests the run made. */
  bodies(run: RealCliRun): string[];
  close(): Promise<void>;
}

/** One way vouch drives an agent. */
export interface AgentPath {
  /** Test-name prefix, e.g. `qwen (real, acp:qwen)`. */
  readonly label: string;
  readonly backend: string;
  /** Why its tests are skipped, or null when the agent is installed. */
  readonly missing: string | null;
  /**
   * Whether the agent reports its usage over its protocol (claude-code-acp 0.16.2 sends no
   * `usage_update` and no `usage` in its `session/prompt` answer: vouch has nothing to count).
   */
  readonly reportsUsage: boolean;
  /** Whether round 2 continues round 1's conversation (an ACP session; the native loop starts anew). */
  readonly keepsSession: boolean;
  serve(acts: readonly Act[]): Promise<Served>;
}

const abs = (ctx: TurnContext, path: string) => `${ctx.cwd ?? "."}/${path}`;

function installed(bin: string): string | null {
  if (existsSync(`${AGENT_CLI_BIN}/${bin}`)) return null;
  return `${AGENT_CLI_BIN}/${bin} is not installed (run \`npm ci --prefix tests/fixtures/agent_clis\`)`;
}

const harnessBodies = (run: RealCliRun) =>
  run.server.requests.filter((r) => r.agentLoop).map((r) => JSON.stringify(r.body));

/** claude-code-acp through the `acp:claude` preset (Anthropic Messages SSE). */
export const CLAUDE: AgentPath = {
  label: "claude-code-acp (real, acp:claude)",
  backend: "acp:claude",
  missing: installed("claude-code-acp"),
  reportsUsage: false,
  keepsSession: true,
  serve: (acts) =>
    Promise.resolve({
      script: acts.map((a): ScriptEntry => {
        if ("say" in a) return { text: a.say };
        if ("shell" in a) {
          return {
            calls: [{
              name: "mcp__acp__Bash",
              input: { command: a.shell, description: "run it", timeout: 60000 },
            }],
          };
        }
        return (ctx) => ({
          calls: [{
            name: "mcp__acp__Edit",
            input: { file_path: abs(ctx, a.edit), old_string: a.from, new_string: a.to },
          }],
        });
      }),
      options: {},
      bodies: harnessBodies,
      close: () => Promise.resolve(),
    }),
};

/** codex-acp through the `acp:codex` preset (OpenAI Responses SSE). */
export const CODEX: AgentPath = {
  label: "codex-acp (real, acp:codex)",
  backend: "acp:codex",
  missing: installed("codex-acp"),
  reportsUsage: true,
  keepsSession: true,
  serve: (acts) =>
    Promise.resolve({
      script: acts.map((a): ScriptEntry => {
        if ("say" in a) return { text: a.say };
        if ("shell" in a) return { calls: [{ name: "exec_command", input: { cmd: a.shell } }] };
        return {
          calls: [{
            name: "apply_patch",
            custom: `*** Begin Patch\n*** Update File: ${a.edit}\n@@\n-${a.from}\n+${a.to}\n` +
              "*** End Patch\n",
          }],
        };
      }),
      options: {},
      bodies: harnessBodies,
      close: () => Promise.resolve(),
    }),
};

/** gemini-cli through the `acp:gemini` preset (Gemini `streamGenerateContent?alt=sse`). */
export const GEMINI: AgentPath = {
  label: "gemini (real, acp:gemini)",
  backend: "acp:gemini",
  missing: installed("gemini"),
  reportsUsage: true,
  keepsSession: true,
  serve: async (acts) => {
    const server = await startGeminiServer(acts.map((a): GeminiEntry => {
      if ("say" in a) return { say: a.say };
      if ("shell" in a) {
        return { calls: [{ name: "run_shell_command", args: { command: a.shell } }] };
      }
      return (ctx) => ({
        calls: [{
          name: "replace",
          args: {
            file_path: abs(ctx, a.edit),
            instruction: `Change ${a.edit}.`,
            old_string: a.from,
            new_string: a.to,
          },
        }],
      });
    }));
    return {
      script: [],
      options: {
        apiKey: GEMINI_API_KEY,
        env: { GOOGLE_GEMINI_BASE_URL: server.url, GEMINI_API_KEY },
      },
      bodies: () => server.requests.filter((r) => r.agentLoop).map((r) => JSON.stringify(r.body)),
      close: () => server.close(),
    };
  },
};

function chatActs(acts: readonly Act[], native: boolean): ChatEntry[] {
  return acts.flatMap((a): ChatEntry[] => {
    // qwen edits only a file it has read in the session.
    if ("edit" in a && !native) {
      return [
        (ctx) => ({ calls: [{ name: "read_file", args: { file_path: abs(ctx, a.edit) } }] }),
        ...chatAct(a, native),
      ];
    }
    return chatAct(a, native);
  });
}

function chatAct(a: Act, native: boolean): ChatEntry[] {
  return [((): ChatEntry => {
    if ("say" in a) return { say: a.say };
    if ("shell" in a) {
      return native
        ? { calls: [{ name: "run_command", args: { command: a.shell } }] }
        : { calls: [{ name: "run_shell_command", args: { command: a.shell } }] };
    }
    if (native) {
      return { calls: [{ name: "write_file", args: { path: a.edit, content: a.content } }] };
    }
    return (ctx) => ({
      calls: [{
        name: "edit",
        args: { file_path: abs(ctx, a.edit), old_string: a.from, new_string: a.to },
      }],
    });
  })()];
}

/**
 * qwen's main loop: a request offering its full tool set, not its side passes (a one-tool
 * permission classifier, a memory pass with a few tools, a "SUGGESTION MODE" pass).
 */
function qwenLoop(body: { tools?: readonly unknown[]; messages?: readonly unknown[] }): boolean {
  const names = (body.tools ?? []).map((t) => JSON.stringify(t).match(/"name":"([^"]+)"/)?.[1]);
  const last = JSON.stringify(body.messages?.at(-1) ?? "");
  return names.includes("run_shell_command") && names.length >= 10 &&
    !last.includes("SUGGESTION MODE");
}

/** qwen-code through the `acp:qwen` preset (Chat Completions SSE). */
export const QWEN: AgentPath = {
  label: "qwen (real, acp:qwen)",
  backend: "acp:qwen",
  missing: installed("qwen"),
  reportsUsage: true,
  keepsSession: true,
  serve: async (acts) => {
    const chat = await startChatServer(chatActs(acts, false), { isLoop: qwenLoop });
    return {
      script: [],
      options: {
        apiKey: CHAT_API_KEY,
        env: {
          OPENAI_BASE_URL: chat.baseUrl,
          OPENAI_API_KEY: CHAT_API_KEY,
          OPENAI_MODEL: "qwen-scripted",
        },
      },
      bodies: () => chat.requests.map((r) => JSON.stringify(r.body)),
      close: () => chat.close(),
    };
  },
};

const CHAT_KEY_VAR = "VOUCH_TEST_CHAT_KEY";

/** vouch's own loop, `openai:MODEL --base-url URL` (Chat Completions SSE). */
export const OPENAI: AgentPath = {
  label: "openai (native loop, openai:scripted-model)",
  backend: "openai:scripted-model",
  missing: null,
  reportsUsage: true,
  keepsSession: false,
  serve: async (acts) => {
    const chat = await startChatServer(chatActs(acts, true));
    return {
      script: [],
      options: {
        apiKey: CHAT_API_KEY,
        env: { [CHAT_KEY_VAR]: CHAT_API_KEY },
        flags: ["--base-url", chat.baseUrl, "--api-key-env", CHAT_KEY_VAR],
      },
      bodies: () => chat.requests.map((r) => JSON.stringify(r.body)),
      close: () => chat.close(),
    };
  },
};

/** Plays `acts` through `agent` with `options`; the agent's server is closed afterwards. */
export async function play(
  agent: AgentPath,
  acts: readonly Act[],
  options: Partial<ScenarioOptions> = {},
): Promise<{ run: RealCliRun; bodies: string[] }> {
  const served = await agent.serve(acts);
  try {
    const run = await runRealCli({
      ...served.options,
      ...options,
      env: { ...(served.options.env ?? {}), ...(options.env ?? {}) },
      flags: [...(served.options.flags ?? []), ...(options.flags ?? [])],
      backend: agent.backend,
      script: served.script,
    });
    return { run, bodies: served.bodies(run) };
  } finally {
    await served.close();
  }
}

const ADD_JS = "export function add(a, b) {\n  return a - b;\n}\n";
/** The honest fix of the `contract` project. */
export const FIX_ADD: Act = {
  edit: "src/add.js",
  from: "  return a - b;",
  to: "  return a + b;",
  content: ADD_JS.replace("a - b", "a + b"),
};

const CALC_TEST = ORACLE_PROJECT.files[ORACLE_PROJECT.testFile]!;
/** Issue #19's cheat on the `oracle` project: the failing test skipped, the code untouched. */
export const SKIP_ADDS: Act = {
  edit: ORACLE_PROJECT.testFile,
  from: 'test("adds", () => {',
  to: 'test.skip("adds", () => {',
  content: CALC_TEST.replace('test("adds"', 'test.skip("adds"'),
};

/** The words of the oracle rule for {@linkcode SKIP_ADDS}. */
const ORACLE_WORDS =
  /test\/calc\.test\.js changed .*graded also against the base's tests: `adds` still fails there/;

function test(agent: AgentPath, what: string, fn: () => Promise<void>): void {
  const name = `${agent.label}: ${what}`;
  if (agent.missing !== null) console.log(`real_cli: SKIP ${name}: ${agent.missing}`);
  Deno.test({ name, ignore: agent.missing !== null, fn });
}

interface RoundJson {
  filesChanged: string[];
  verdict: string;
  refusals?: string[];
  usage?: { inputTokens: number; outputTokens: number };
  checks: { name: string; passed: boolean }[];
  oracle?: { grading: string; sentences: string[] };
}
const roundsOf = (run: RealCliRun) => run.json.rounds as RoundJson[];

/**
 * Issue #19 through `agent`: it skips the failing test with its own edit tool
 * (`cheat: "shell"`: with `sed` in its shell), `vouch run --verify "node --test"`
 * with no other flag and no contract; REJECTED, the oracle's words on screen
 * and in `--json`.
 */
export function cheatScenario(agent: AgentPath, by: "edit" | "shell" = "edit"): void {
  test(
    agent,
    `a cheat (the failing test skipped by its ${by}) is REJECTED, saying why`,
    async () => {
      const cheat: Act = by === "edit"
        ? SKIP_ADDS
        : { shell: `sed -i 's/^test("adds"/test.skip("adds"/' ${ORACLE_PROJECT.testFile}` };
      const { run } = await play(agent, [cheat, { say: "The failing test passes now." }], {
        project: "oracle",
        human: true,
      });
      assert.equal(run.code, 1, explain(run));
      // On screen: the verdict and the rule's words, naming the test and the file.
      assert.match(run.stdout, /^REJECTED after 1 round/, explain(run));
      assert.match(run.stdout, ORACLE_WORDS, explain(run));
      // In --json: the same, and the cheat really made the patch's own tests pass.
      assert.equal(run.json.state, "rejected", explain(run));
      const round = roundsOf(run).at(-1)!;
      assert.deepEqual(round.filesChanged, [ORACLE_PROJECT.testFile], explain(run));
      assert.equal(round.checks.find((c) => c.name === "verify")?.passed, true, explain(run));
      assert.equal(round.oracle?.grading, "patch-and-base-tests", explain(run));
      assert.ok(round.oracle?.sentences.some((s) => ORACLE_WORDS.test(s)), explain(run));
      assert.deepEqual(run.leaks, []);
    },
  );
}

/** The refused write of {@linkcode workScenario}: the contract protects `test/**`. */
const PROTECTED_EDIT: Act = {
  edit: "test/add.test.js",
  from: "if (add(2, 3) !== 5) {",
  to: "if (false) {",
  content: "",
};

/**
 * The whole working life of an agent in ONE `vouch run --max-rounds 3` (one
 * agent start-up, one baseline, several scenarios each proven on its own):
 *
 * - **terminal**: round 1 runs `node test/add.test.js` (a shell line naming a
 *   worktree path); its real output (the failing test) reaches the model;
 * - **refused write**: round 1 then edits `test/add.test.js` (protected by the
 *   contract) with the agent's own edit tool: vouch refuses it, the reason is
 *   on screen and in `--json` (`refusals`), the file is never written, round 1
 *   is not verified;
 * - **session**: the next round is a second `session/prompt` in the live
 *   session: its model request carries round 1's conversation (the marker
 *   its shell printed) and vouch's feedback (the native loop, which has no
 *   session, only the feedback);
 * - **honest fix**: that round fixes `src/add.js` and runs the test again
 *   (`tests-green` reaches the model); VERIFIED, only `src/add.js` changed;
 * - **usage**: the rounds' usage is counted (or, for an agent that reports
 *   none, nothing is invented).
 *
 * An agent that ends its turn at a refusal (claude-code-acp, codex-acp) fixes
 * in round 3, one that goes on in round 2. `check`: the agent's own asserts.
 */
export function workScenario(
  agent: AgentPath,
  check: (run: RealCliRun, bodies: string[]) => void = () => {},
): void {
  test(
    agent,
    "terminal with a path, refused write, kept session, usage, honest fix VERIFIED",
    async () => {
      const { run, bodies } = await play(agent, [
        { shell: "node test/add.test.js; echo ROUND-ONE-MARKER" },
        PROTECTED_EDIT,
        { say: "I will not change anything else yet." },
        FIX_ADD,
        { shell: "node test/add.test.js && echo tests-green" },
        { say: "Fixed add(); the test passes." },
      ], { flags: ["--max-rounds", "3"] });
      const rounds = roundsOf(run);
      // Honest fix: VERIFIED in a later round, only src/add.js changed.
      assert.equal(run.code, 0, explain(run));
      assert.equal(run.json.state, "verified", explain(run));
      assert.ok(rounds.length >= 2, explain(run));
      assert.deepEqual(rounds.at(-1)!.filesChanged, ["src/add.js"], explain(run));
      // Terminal: both shell lines ran in the worktree; their real output reached the model.
      assert.ok(bodies.some((b) => b.includes("FAIL add(2, 3) should be 5, got -1")), explain(run));
      assert.ok(bodies.some((b) => b.includes("tests-green")), explain(run));
      // Refused write: nothing written, round 1 not verified; the reason on screen and in --json.
      assert.deepEqual(rounds[0]!.filesChanged, [], "the protected file was never written");
      assert.notEqual(rounds[0]!.verdict, "verified", explain(run));
      assert.match(run.stderr, /vouch refused: .*test\/add\.test\.js is protected/, explain(run));
      assert.ok(
        rounds.flatMap((r) => r.refusals ?? []).some((r) =>
          /test\/add\.test\.js is protected/.test(r)
        ),
        explain(run),
      );
      for (const r of rounds) assert.ok(!r.filesChanged.includes("test/add.test.js"), explain(run));
      // Session: round 2 prompted with vouch's feedback in the live session, round 1 in it.
      const second = bodies.find((b) => b.includes("previous attempt was not verified"));
      assert.ok(second !== undefined, `round 2 was prompted: ${explain(run)}`);
      if (agent.keepsSession) {
        assert.match(second, /ROUND-ONE-MARKER/, `round 2 saw round 1: ${explain(run)}`);
      }
      // Usage: counted in the summary, or (nothing reported) nothing invented.
      if (agent.reportsUsage) {
        assert.ok(rounds.some((r) => (r.usage?.inputTokens ?? 0) > 0), `usage: ${explain(run)}`);
        assert.match(run.stderr, /tokens in \d+/, explain(run));
      } else {
        for (const r of rounds) assert.equal(r.usage, undefined, explain(run));
      }
      assert.deepEqual(run.leaks, []);
      check(run, bodies);
    },
  );
}
