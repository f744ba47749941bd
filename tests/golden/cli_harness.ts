/**
 * Runs the real `vouch` CLI as a subprocess against fixture repositories, with
 * the fake agent executables first on PATH and a private key file and worktree
 * root, and checks what every end-to-end test checks: the log verifies and
 * replays deterministically, and the user's checkout is byte-identical.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { readLogFile } from "../../adapters/log/store.ts";
import { inspectLog } from "../../adapters/audit/audit_log.ts";
import { loadOrCreateMacKey } from "../../adapters/keys/mac_key.ts";
import { replayKernelRecords } from "../../adapters/log/replay.ts";
import { lifecycleReplayKernel } from "../../adapters/audit/kernel_replay.ts";
import { KERNEL_LIFECYCLE_VERSION } from "../../kernel/lifecycle/mod.ts";
import { type FixtureRepo, snapshot, snapshotDifferences } from "./fixture_repos.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const FAKE_BIN = `${ROOT}tests/fixtures/bin`;
const MAIN = `${ROOT}cli/main.ts`;

/** What a CLI run produced. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** Parsed `--json` result, when the command printed one. */
  readonly json: Record<string, unknown> | null;
}

/** The permission flags of the `vouch` task in deno.json, so tests run the CLI exactly as users do. */
export const VOUCH_TASK_FLAGS: readonly string[] = (() => {
  const config = JSON.parse(Deno.readTextFileSync(`${ROOT}deno.json`));
  const words = String(config.tasks.vouch).split(/\s+/);
  return words.slice(words.indexOf("run") + 1, words.indexOf("cli/main.ts"));
})();

/** What {@linkcode runAsVouch} saw of its program. */
export interface ProgramRun {
  readonly code: number;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the TypeScript `source` (given `args`) as a vouch process of its own, under the vouch
 * task's permission flags ({@linkcode VOUCH_TASK_FLAGS}), not `-A`: what vouch code does there is
 * what users get (Deno asks `--allow-all` for any `/proc/<pid>/*` read in-process, for one).
 */
export async function runAsVouch(
  source: string,
  args: readonly string[] = [],
): Promise<ProgramRun> {
  const script = await Deno.makeTempFile({ prefix: "vouch-as-vouch-", suffix: ".ts" });
  try {
    await Deno.writeTextFile(script, source);
    const r = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...VOUCH_TASK_FLAGS, `--config=${ROOT}deno.json`, script, ...args],
      stdout: "piped",
      stderr: "piped",
    }).output();
    return {
      code: r.code,
      signal: r.signal,
      stdout: new TextDecoder().decode(r.stdout),
      stderr: new TextDecoder().decode(r.stderr),
    };
  } finally {
    await Deno.remove(script);
  }
}

/** Which runtime runs the CLI: Deno (`deno task vouch`) or Node (the CLI bundled for Node). */
export type CliRuntime = "deno" | "node";

function findOnPath(name: string): string | null {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      if (dir !== "" && Deno.statSync(`${dir}/${name}`).isFile) return `${dir}/${name}`;
    } catch {
      // not here
    }
  }
  return null;
}

/** The node executable, or null (Node tests then skip, saying so). */
export const NODE: string | null = findOnPath("node");

/** The runtimes end-to-end tests run the CLI under (Node where it is installed). */
export const RUNTIMES: readonly CliRuntime[] = NODE === null ? ["deno"] : ["deno", "node"];
if (NODE === null) console.log("cli_harness: node not on PATH; Node variants of golden tests skip");

let nodeBundle: string | null = null;

/**
 * `cli/node_bin.ts` bundled to one ESM file for Node (`deno bundle`), built
 * once per test process into a temp dir that is removed at exit.
 */
export function nodeCliBundle(): string {
  if (nodeBundle !== null) return nodeBundle;
  const dir = Deno.makeTempDirSync({ prefix: "vouch-node-cli-" });
  const out = `${dir}/vouch.mjs`;
  const r = new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", `--config=${ROOT}deno.json`, "-o", out, `${ROOT}cli/node_bin.ts`],
  }).outputSync();
  if (!r.success) throw new Error(`deno bundle failed: ${new TextDecoder().decode(r.stderr)}`);
  globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
  nodeBundle = out;
  return out;
}

/** Spawns `vouch ARGS` in `repo` (the `deno task vouch` flags, or the Node bundle). */
export function spawnVouch(
  repo: FixtureRepo,
  args: string[],
  state: string,
  runtime: CliRuntime = "deno",
  extraEnv: Readonly<Record<string, string>> = {},
  wrap: readonly string[] = [],
): Deno.ChildProcess {
  const [program, argv] = runtime === "node"
    ? [NODE!, [nodeCliBundle(), ...args]]
    : [Deno.execPath(), ["run", ...VOUCH_TASK_FLAGS, `--config=${ROOT}deno.json`, MAIN, ...args]];
  // `wrap`: a program that runs vouch (e.g. strace), given vouch's own command line after it.
  return new Deno.Command(wrap[0] ?? program, {
    args: wrap.length > 0 ? [...wrap.slice(1), program, ...argv] : argv,
    cwd: repo.dir,
    env: {
      PATH: `${FAKE_BIN}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
      HOME: Deno.env.get("HOME") ?? "/tmp",
      VOUCH_KEY_FILE: `${state}/key`,
      XDG_STATE_HOME: `${state}/state`,
      VOUCH_WORKTREE_ROOT: `${state}/worktrees`,
      NO_COLOR: "1",
      ...extraEnv,
    },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Runs `vouch ARGS` to completion. */
export async function runVouch(
  repo: FixtureRepo,
  args: string[],
  state: string,
  runtime: CliRuntime = "deno",
  extraEnv: Readonly<Record<string, string>> = {},
  wrap: readonly string[] = [],
): Promise<CliRun> {
  const out = await spawnVouch(repo, args, state, runtime, extraEnv, wrap).output();
  const stdout = new TextDecoder().decode(out.stdout);
  let json: Record<string, unknown> | null = null;
  try {
    json = JSON.parse(stdout.trim().split("\n").at(-1) ?? "");
  } catch {
    json = null;
  }
  return { code: out.code, stdout, stderr: new TextDecoder().decode(out.stderr), json };
}

/**
 * Asserts the log in `repo` verifies end to end with the run's key (chain,
 * receipts, minted patches, deterministic replay) and ends with `state`.
 */
export async function assertLog(
  repo: FixtureRepo,
  finalState: string,
  state?: string,
): Promise<void> {
  if (state !== undefined) {
    const key = await loadOrCreateMacKey({
      repoRoot: repo.dir,
      env: { VOUCH_KEY_FILE: `${state}/key` },
      create: false,
    });
    const report = await inspectLog(`${repo.dir}/.vouch/events.jsonl`, { key });
    assert.equal(
      report.verdict,
      "verified",
      JSON.stringify(report.receipts) + JSON.stringify(report.patches),
    );
  }
  const log = await readLogFile(`${repo.dir}/.vouch/events.jsonl`);
  assert.equal(log.status, "ok", "the event log verifies");
  const inits = log.records.filter((r) => r.kind === "kernel.init");
  assert.ok(inits.length > 0, "the log records how the kernel started");
  for (const init of inits) {
    assert.equal((init.body as Record<string, unknown>)["kernel"], KERNEL_LIFECYCLE_VERSION);
  }
  const replay = replayKernelRecords(log.records, lifecycleReplayKernel);
  assert.equal(replay.status, "deterministic", JSON.stringify(replay));
  const outcome = log.records.filter((r) => r.kind === "run.outcome").at(-1);
  assert.ok(outcome !== undefined, "the log records the run outcome");
  assert.equal((outcome.body as Record<string, unknown>)["state"], finalState);
}

/**
 * Asserts no vouch worktree is left under the private worktree root. The CLI
 * waits a few seconds for its trees' removal, then hands what is left to a
 * detached child and exits: this polls (bounded, 60 s) for that child.
 */
export async function assertNoWorktrees(state: string): Promise<void> {
  for (let i = 0; i < 600 && (await worktreesLeft(state)).length > 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.deepEqual(await worktreesLeft(state), [], "no worktree is left behind");
}

async function worktreesLeft(state: string): Promise<string[]> {
  const left: string[] = [];
  try {
    for await (const repoDir of Deno.readDir(`${state}/worktrees`)) {
      if (!repoDir.isDirectory) continue;
      for await (const e of Deno.readDir(`${state}/worktrees/${repoDir.name}`)) left.push(e.name);
    }
  } catch {
    // no worktree root at all: nothing left
  }
  return left;
}

/**
 * Runs one end-to-end case: snapshot, run, then the shared assertions.
 * Returns the run for case-specific checks.
 */
export async function e2e(
  make: () => Promise<FixtureRepo>,
  args: string[],
  expect: { state: string; code: number; checkoutChanges?: string[] },
  extra?: (repo: FixtureRepo, run: CliRun) => Promise<void> | void,
  runtime: CliRuntime = "deno",
): Promise<void> {
  const repo = await make();
  const state = await Deno.makeTempDir({ prefix: "vouch-e2e-state-" });
  try {
    const before = await snapshot(repo.dir);
    const run = await runVouch(repo, ["run", "--json", ...args], state, runtime);
    assert.equal(run.json?.["state"], expect.state, run.stderr + run.stdout);
    assert.equal(run.code, expect.code);
    await assertLog(repo, expect.state, state);
    await assertNoWorktrees(state);
    assert.deepEqual(
      snapshotDifferences(before, await snapshot(repo.dir)),
      expect.checkoutChanges ?? [],
      "the user's checkout is byte-identical",
    );
    await extra?.(repo, run);
  } finally {
    await repo.cleanup();
    await Deno.remove(state, { recursive: true }).catch(() => {});
  }
}
