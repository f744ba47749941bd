/**
 * Drives `vouch run` (the real CLI, as `deno task vouch` runs it) with the
 * REAL agent CLIs from tests/fixtures/agent_clis (pinned, installed with
 * `npm ci` by .ci/run) against a scripted model server on 127.0.0.1. Every
 * run gets a private HOME, state, worktree root and config dir; Codex gets a
 * `model_providers` entry pointing at the server, Claude Code gets
 * `ANTHROPIC_BASE_URL`. Telemetry and update checks are off, so nothing
 * leaves loopback.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  type ModelServer,
  SCRIPTED_API_KEY,
  type ScriptEntry,
  startModelServer,
} from "../../fixtures/model_server/mod.ts";
import { assertValid } from "../../schemas/_ajv.ts";
import { NODE, nodeCliBundle } from "../../golden/cli_harness.ts";
import { runnerShape } from "../../golden/oracle/_runners.ts";
import { runOutcomeReport } from "../../../adapters/driver/run_in_repo.ts";
import type { RunOutcome } from "../../../adapters/driver/outcome.ts";
import { jsonDocument } from "../../../cli/json_document.ts";

export { NODE };

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const MAIN = `${ROOT}cli/main.ts`;
/** Where `npm ci` puts the pinned CLIs. */
export const AGENT_CLI_BIN = `${ROOT}tests/fixtures/agent_clis/node_modules/.bin`;

/** Which real CLIs are installed (the tests of a missing one are skipped with a printed reason). */
export const REAL_CLIS: Readonly<Record<"codex" | "claude", boolean>> = {
  codex: existsSync(`${AGENT_CLI_BIN}/codex`),
  claude: existsSync(`${AGENT_CLI_BIN}/claude`),
};
for (const [name, present] of Object.entries(REAL_CLIS)) {
  if (!present) {
    console.log(
      `real_cli: SKIP ${name} scenarios: ${AGENT_CLI_BIN}/${name} is not installed ` +
        "(run `npm ci --prefix tests/fixtures/agent_clis`)",
    );
  }
}

/** The model Codex is told to use (known to codex 0.171, so it offers `apply_patch`). */
export const CODEX_MODEL = "gpt-5.5";
/** The variable the Codex provider entry reads its key from (forwarded with --agent-env). */
export const CODEX_KEY_VAR = "VOUCH_SCRIPTED_OPENAI_KEY";

const VOUCH_FLAGS: readonly string[] = (() => {
  const config = JSON.parse(Deno.readTextFileSync(`${ROOT}deno.json`));
  const words = String(config.tasks.vouch).split(/\s+/);
  return words.slice(words.indexOf("run") + 1, words.indexOf("cli/main.ts"));
})();

/** Deno's own cache, so the vouch process (with a private HOME) finds its npm packages. */
const DENO_DIR: string = Deno.env.get("DENO_DIR") ?? (() => {
  const out = new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stdout: "piped" })
    .outputSync();
  return JSON.parse(new TextDecoder().decode(out.stdout)).denoDir as string;
})();

/** The buggy project every scenario starts from: `add` subtracts; its test says so. */
async function createRepo(dir: string): Promise<void> {
  await Deno.mkdir(`${dir}/src`, { recursive: true });
  await Deno.mkdir(`${dir}/test`, { recursive: true });
  await Deno.writeTextFile(`${dir}/package.json`, '{ "type": "module" }\n');
  await Deno.writeTextFile(
    `${dir}/src/add.js`,
    "export function add(a, b) {\n  return a - b;\n}\n",
  );
  await Deno.writeTextFile(
    `${dir}/test/add.test.js`,
    [
      'import { add } from "../src/add.js";',
      "if (add(2, 3) !== 5) {",
      '  console.error("FAIL add(2, 3) should be 5, got " + add(2, 3));',
      "  process.exit(1);",
      "}",
      'console.log("ok add");',
      "",
    ].join("\n"),
  );
  await gitCommit(dir, "buggy add");
}

async function gitCommit(dir: string, message: string): Promise<void> {
  for (
    const args of [
      ["init", "-q", "-b", "main"],
      ["add", "-A"],
      ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message],
    ]
  ) {
    const r = await new Deno.Command("git", { args, cwd: dir, stdout: "null", stderr: "piped" })
      .output();
    if (!r.success) throw new Error(`git ${args[0]}: ${new TextDecoder().decode(r.stderr)}`);
  }
}

function codexConfig(url: string): string {
  return [
    `model = "${CODEX_MODEL}"`,
    'model_provider = "vouchscripted"',
    "",
    "[model_providers.vouchscripted]",
    'name = "vouch scripted model"',
    `base_url = "${url}/v1"`,
    `env_key = "${CODEX_KEY_VAR}"`,
    'wire_api = "responses"',
    "request_max_retries = 0",
    "stream_max_retries = 1",
    "stream_idle_timeout_ms = 5000",
    "",
  ].join("\n");
}

/** What one scenario produced. */
/**
 * `deno run` of vouch's CLI: this checkout's, or (benches comparing two checkouts with one
 * harness) the one at `$VOUCH_BENCH_CLI_ROOT`, with its own `deno task vouch` flags and config.
 */
function cliLauncher(): string[] {
  const other = Deno.env.get("VOUCH_BENCH_CLI_ROOT");
  if (other === undefined || other === "") {
    return ["run", ...VOUCH_FLAGS, `--config=${ROOT}deno.json`, MAIN];
  }
  const root = other.endsWith("/") ? other : `${other}/`;
  const words = String(JSON.parse(Deno.readTextFileSync(`${root}deno.json`)).tasks.vouch).split(
    /\s+/,
  );
  const flags = words.slice(words.indexOf("run") + 1, words.indexOf("cli/main.ts"));
  return ["run", ...flags, `--config=${root}deno.json`, `${root}cli/main.ts`];
}

/** One stderr line of a traced run ({@linkcode RealCliRun.trace}). */
export interface TracedLine {
  readonly atMs: number;
  readonly cpuMs: number | null;
  readonly line: string;
}

/** User + system CPU of process `pid` itself so far, ms (`/proc/PID/stat`, 100 ticks/s). */
function ownCpuMs(pid: number): number | null {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return null;
  }
}

/** Runs `cmd`, stamping each stderr line with the wall and the process's CPU when it came. */
async function tracedOutput(
  cmd: Deno.Command,
  started: number,
  trace: TracedLine[],
): Promise<{ code: number; stdout: Uint8Array; stderr: Uint8Array }> {
  const child = cmd.spawn();
  const chunks: Uint8Array[] = [];
  let partial = "";
  const decoder = new TextDecoder();
  const stdout = new Response(child.stdout).arrayBuffer();
  for await (const chunk of child.stderr) {
    chunks.push(chunk);
    const lines = (partial + decoder.decode(chunk, { stream: true })).split("\n");
    partial = lines.pop()!;
    const atMs = Date.now() - started;
    const cpuMs = ownCpuMs(child.pid);
    for (const line of lines) trace.push({ atMs, cpuMs, line });
  }
  trace.push({ atMs: Date.now() - started, cpuMs: ownCpuMs(child.pid), line: "(stderr closed)" });
  const code = (await child.status).code;
  const stderr = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  chunks.reduce((at, c) => (stderr.set(c, at), at + c.length), 0);
  return { code, stdout: new Uint8Array(await stdout), stderr };
}

export interface RealCliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /**
   * The parsed `--json` document. With `human`, the document `--json` would have printed: the
   * run's `outcome.json` through the CLI's own `jsonDocument(runOutcomeReport(...))`.
   */
  readonly json: Record<string, unknown>;
  /** Every request the model server saw. */
  readonly server: ModelServer;
  /** The fixture repository (the user's checkout). */
  readonly repo: string;
  /** Wall time of the `vouch run`, ms. */
  readonly ms: number;
  /**
   * CPU time (user + system) of the `vouch run` and every process it waited for (the agent,
   * its sandbox, the checks), ms; measured by `/usr/bin/time` when `VOUCH_BENCH_CPU=1`, else
   * null.
   */
  readonly cpuMs: number | null;
  /**
   * With `VOUCH_BENCH_TRACE=1`: each stderr line as it came, with the wall time since the CLI
   * was started and the CLI process's own CPU time so far (`/proc/PID/stat`, children not
   * counted), ms; else null.
   */
  readonly trace: readonly TracedLine[] | null;
  /** Whether the run left artefacts (`.vouch/runs/`): false when nothing ran. */
  readonly artefacts: boolean;
  /** Files under `.vouch/` (log, transcripts, results) that contain the API key's value. */
  readonly leaks: readonly string[];
}

function filesContaining(dir: string, needle: string): string[] {
  const out: string[] = [];
  if (!existsSync(dir)) return out;
  for (const entry of Deno.readDirSync(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) out.push(...filesContaining(path, needle));
    else if (entry.isFile && Deno.readTextFileSync(path).includes(needle)) out.push(path);
  }
  return out;
}

/** Options of {@linkcode runRealCli}. */
export interface ScenarioOptions {
  /** `codex`, `claude`, or another `--backend` value (e.g. `acp:claude-code-acp`). */
  readonly backend: string;
  readonly script: readonly ScriptEntry[];
  /** Extra `vouch run` flags. */
  readonly flags?: readonly string[];
  /** Extra environment of the vouch process. */
  readonly env?: Readonly<Record<string, string>>;
  /** Leave the real CLIs off PATH (the "CLI missing" scenario). */
  readonly withoutCli?: boolean;
  /** The key the CLI sends (default: the one the server accepts). */
  readonly apiKey?: string;
  /** Without `--json`: the human summary on stdout (`json` is built from the artefacts). */
  readonly human?: boolean;
  /** The user's agent config file (`$XDG_CONFIG_HOME/vouch/config.json`), when given. */
  readonly agentConfig?: unknown;
  /** Run the CLI under Node (the bundle of cli/node_bin.ts) instead of Deno. */
  readonly runtime?: "deno" | "node";
  /**
   * `contract` (default): the `add` project verified against a contract that protects `test/**`.
   * `oracle`: issue #19's node:test project (`test/calc.test.js`, failing "adds") run as a new
   * user runs it: `--verify "node --test"`, no contract, no other flag.
   */
  readonly project?: "contract" | "oracle";
}

/** The node:test project of {@linkcode ScenarioOptions.project} `oracle`. */
export const ORACLE_PROJECT = runnerShape("node");

async function createOracleRepo(dir: string): Promise<void> {
  for (const [path, text] of Object.entries(ORACLE_PROJECT.files)) {
    await Deno.mkdir(`${dir}/${path}`.replace(/\/[^/]*$/, ""), { recursive: true });
    await Deno.writeTextFile(`${dir}/${path}`, text);
  }
  await gitCommit(dir, "buggy calc");
}

/** The contract every scenario verifies against: the test passes and tests stay untouched. */
const CONTRACT = JSON.stringify({
  description: "add(2, 3) is 5 and the test file is not touched",
  checks: [{ name: "tests", run: ["node", "test/add.test.js"] }],
  protect: ["test/**"],
});

/**
 * Runs one scenario: a fresh repo, a server playing `script`, `vouch run
 * --backend <cli> --json --progress plain`, and cleanup (the server is closed
 * before this returns; the temp tree is removed).
 */
export async function runRealCli(opts: ScenarioOptions): Promise<RealCliRun> {
  const tmp = await Deno.makeTempDir({ prefix: "vouch-realcli-" });
  const server = await startModelServer(opts.script);
  try {
    const repo = `${tmp}/repo`;
    const home = `${tmp}/home`;
    const oracle = opts.project === "oracle";
    await (oracle ? createOracleRepo(repo) : createRepo(repo));
    await Deno.mkdir(`${home}/.codex`, { recursive: true });
    await Deno.writeTextFile(`${home}/.codex/config.toml`, codexConfig(server.url));
    await Deno.writeTextFile(`${tmp}/contract.json`, CONTRACT);
    if (opts.agentConfig !== undefined) {
      await Deno.mkdir(`${tmp}/config/vouch`, { recursive: true });
      await Deno.writeTextFile(`${tmp}/config/vouch/config.json`, JSON.stringify(opts.agentConfig));
    }
    const key = opts.apiKey ?? SCRIPTED_API_KEY;
    const env: Record<string, string> = {
      PATH: `${opts.withoutCli ? "" : `${AGENT_CLI_BIN}:`}${
        Deno.env.get("PATH") ?? "/usr/bin:/bin"
      }`,
      HOME: home,
      XDG_CONFIG_HOME: `${tmp}/config`,
      XDG_STATE_HOME: `${tmp}/state`,
      VOUCH_KEY_FILE: `${tmp}/key`,
      VOUCH_WORKTREE_ROOT: `${tmp}/worktrees`,
      NO_COLOR: "1",
      DENO_DIR,
      // Provider reach: the variables each CLI reads, forwarded by name by vouch.
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: key,
      CLAUDE_CODE_MAX_RETRIES: "1",
      CODEX_HOME: `${home}/.codex`,
      [CODEX_KEY_VAR]: key,
      ...(opts.env ?? {}),
    };
    const launcher = opts.runtime === "node" ? [nodeCliBundle()] : cliLauncher();
    const args = [
      ...launcher,
      "run",
      "--dir",
      repo,
      "--backend",
      opts.backend,
      "--goal",
      oracle ? "make the failing test pass" : "make the failing test in test/add.test.js pass",
      ...(oracle ? ["--verify", ORACLE_PROJECT.verify] : ["--contract", `${tmp}/contract.json`]),
      "--max-rounds",
      "1",
      "--agent-env",
      CODEX_KEY_VAR,
      ...(opts.human ? [] : ["--json"]),
      "--progress",
      "plain",
      ...(opts.flags ?? []),
    ];
    const program = opts.runtime === "node" ? NODE! : Deno.execPath();
    const timed = Deno.env.get("VOUCH_BENCH_CPU") === "1" && existsSync("/usr/bin/time");
    const trace = Deno.env.get("VOUCH_BENCH_TRACE") === "1" && !timed ? [] as TracedLine[] : null;
    const started = Date.now();
    const cmd = new Deno.Command(timed ? "/usr/bin/time" : program, {
      args: timed ? ["-f", "%U %S", "-o", `${tmp}/cpu`, program, ...args] : args,
      cwd: repo,
      env,
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    });
    const out = trace !== null ? await tracedOutput(cmd, started, trace) : await cmd.output();
    const ms = Date.now() - started;
    const cpuMs = timed
      ? Math.round(
        Deno.readTextFileSync(`${tmp}/cpu`).trim().split("\n").at(-1)!.split(" ")
          .reduce((n, s) => n + Number(s), 0) * 1000,
      )
      : null;
    const stdout = new TextDecoder().decode(out.stdout);
    const stderr = new TextDecoder().decode(out.stderr);
    let json: Record<string, unknown> = {};
    if (!opts.human) {
      try {
        json = JSON.parse(stdout.trim().split("\n").at(-1) ?? "");
      } catch {
        throw new Error(`no --json document (exit ${out.code}):\n${stdout}\n--- stderr\n${stderr}`);
      }
      // Every outcome, a backend that never started included, is a valid run-output document.
      assertValid("run-output.schema.json", json, "vouch run --json");
    } else json = humanRunJson(repo);
    const artefacts = existsSync(`${repo}/.vouch/runs`);
    const leaks = [
      ...filesContaining(`${repo}/.vouch`, key),
      ...(stdout.includes(key) || stderr.includes(key) ? ["(vouch output)"] : []),
    ];
    return {
      code: out.code,
      stdout,
      stderr,
      json,
      server,
      repo,
      ms,
      cpuMs,
      trace,
      artefacts,
      leaks,
    };
  } finally {
    await server.close();
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
}

/** What `--json` prints for the run recorded in `repo` (its one `outcome.json`), or `{}`. */
function humanRunJson(repo: string): Record<string, unknown> {
  const runs = `${repo}/.vouch/runs`;
  if (!existsSync(runs)) return {};
  const tasks = [...Deno.readDirSync(runs)].filter((e) => e.isDirectory);
  if (tasks.length !== 1) return {};
  const file = `${runs}/${tasks[0]!.name}/outcome.json`;
  if (!existsSync(file)) return {};
  const outcome = JSON.parse(Deno.readTextFileSync(file)) as RunOutcome;
  const json = JSON.parse(JSON.stringify(jsonDocument(runOutcomeReport(outcome))));
  assertValid("run-output.schema.json", json, "outcome.json as --json");
  return json;
}

/** A readable dump for assertion messages. */
export function explain(run: RealCliRun): string {
  return `exit ${run.code} in ${run.ms} ms\n--- stdout\n${run.stdout.slice(0, 4000)}\n--- json\n${
    JSON.stringify(run.json, null, 1)
  }\n` +
    `--- stderr\n${run.stderr}\n--- requests\n${
      run.server.requests.map((r) => `${r.method} ${r.path} turn=${r.turn} at=${r.atMs}`).join(
        "\n",
      )
    }`;
}
