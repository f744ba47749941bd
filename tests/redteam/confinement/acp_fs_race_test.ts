// Red team: an ACP agent races vouch's file service. A raw JSON-RPC agent
// (tests/fixtures/acp_agent.mjs, mode `race`) starts a racer that swaps a real
// directory `x` of the worktree with a symlink `y -> <outside>` in a loop
// (renameat2 RENAME_EXCHANGE, compiled from tests/fixtures/racer by cc, or
// through python3 ctypes), then sends 1,500 fs/write_text_file to
// x/planted.txt and 1,500 fs/read_text_file of x/key.txt. Outside the tree
// sits a "key" file (where vouch's HMAC key sits: outside the worktree,
// readable by vouch's own process, invisible to the agent's sandbox). A file
// service that checks a path by name and opens it afterwards lands a write
// outside and reads the key within those requests (3 of 3 runs on the old
// main); a service that walks by descriptor, in the agent's sandbox, never.
// Run confined (bwrap) and with `--sandbox none` (the walk alone holds).
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { acpBackend } from "../../../adapters/backends/acp_backend.ts";
import type { AgentTask } from "../../../adapters/backends/types.ts";
import { agentProfile } from "../../../adapters/sandbox/agent_profile.ts";
import { NO_SANDBOX, type SandboxProfile } from "../../../adapters/sandbox/profile.ts";
import { NODE } from "../../golden/cli_harness.ts";
import { skipReason } from "./_harness.ts";

const FIXTURES = fileURLToPath(new URL("../../fixtures/", import.meta.url));
const AGENT = join(FIXTURES, "acp_agent.mjs");
const REQUESTS = 1500;
const SECRET = "vouch-hmac-key-0123456789abcdef\n";

const hasCc = spawnSync("cc", ["--version"]).status === 0;
const hasPython = spawnSync("python3", ["-c", "import ctypes"]).status === 0;
const racerSkip = NODE === null
  ? "node not on PATH (the raw ACP agent needs it)"
  : !hasCc && !hasPython
  ? "neither cc nor python3 to run a renameat2 racer"
  : null;
if (racerSkip !== null) console.log(`SKIP acp fs race: ${racerSkip}`);

interface RaceCounts {
  wrote: number;
  writeRefused: number;
  read: number;
  readRefused: number;
  leaked: string[];
}

/** The racer's argv, run by the agent in the worktree (the binary lives in the tree). */
function racer(wt: string): string[] {
  if (hasCc) {
    execFileSync("cc", ["-O2", "-o", join(wt, "racer"), join(FIXTURES, "racer/renameat2_racer.c")]);
    return [join(wt, "racer"), "x", "y", "0"];
  }
  const py = spawnSync("sh", ["-c", "command -v python3"], { encoding: "utf8" }).stdout.trim();
  writeFileSync(join(wt, "racer.py"), readFileSync(join(FIXTURES, "racer/renameat2_racer.py")));
  return [py, join(wt, "racer.py"), "x", "y", "0"];
}

async function race(confined: boolean) {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-acp-race-" }));
  try {
    const wt = join(root, "wt");
    const outside = join(root, "outside");
    mkdirSync(join(wt, "x"), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(wt, "x/key.txt"), "decoy\n");
    writeFileSync(join(outside, "key.txt"), SECRET);
    symlinkSync(outside, join(wt, "y"));
    const racerArgv = racer(wt);
    // The agent writes its report into its scratch (writable in its sandbox).
    mkdirSync(join(root, "scratch"));
    const reportFile = join(root, "scratch/report.jsonl");
    let sandbox: SandboxProfile = NO_SANDBOX;
    if (confined) {
      sandbox = agentProfile({
        worktree: wt,
        scratch: join(root, "scratch"),
        home: join(root, "home"),
        readOnly: [FIXTURES],
      });
    }
    const task: AgentTask = {
      taskId: "t-race",
      attempt: 0,
      goal: "race",
      worktree: wt,
      allowedRoots: ["**"],
      forbiddenPaths: [],
      // 3,000 requests beside a racer that keeps a core busy: about 80 s on an idle 2-core box,
      // past 300 s at load 45. A bound that rules out a hang, not a speed.
      maxSeconds: 900,
      maxOutputMb: 10,
    };
    const result = await acpBackend({
      argv: [NODE!, AGENT],
      sandbox,
      env: {
        VOUCH_ACP_MODE: "race",
        VOUCH_ACP_REPORT: reportFile,
        VOUCH_ACP_RACER: JSON.stringify(racerArgv),
        VOUCH_ACP_RACE_N: String(REQUESTS),
      },
    }).run(task, { signal: new AbortController().signal, emit: () => {} });
    assert.equal(result.status, "ok", JSON.stringify(result.failure));
    const report = readFileSync(reportFile, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    const counts = report.find((r) => r.what === "race")?.value as RaceCounts;
    assert.ok(counts !== undefined, "the agent reported its race");
    console.log(`acp fs race (${confined ? "bwrap" : "none"}): ${JSON.stringify(counts)}`);
    // Nothing landed outside the worktree, and the key was never read.
    assert.deepEqual(readdirSync(outside).sort(), ["key.txt"]);
    assert.equal(readFileSync(join(outside, "key.txt"), "utf8"), SECRET);
    assert.deepEqual(counts.leaked, [], "a read returned something other than the decoy");
    assert.equal(counts.wrote + counts.writeRefused, REQUESTS);
    // The race was real: the racer kept swapping, so some requests met the link and were refused.
    assert.ok(counts.writeRefused + counts.readRefused > 0, "the racer never raced");
    assert.ok(counts.wrote > 0 && counts.read > 0, "no request met the real directory");
    // Every write that was served landed inside the tree (in x/ or, swapped, under y's name).
    assert.ok(existsSync(join(wt, "x/planted.txt")) || existsSync(join(wt, "y/planted.txt")));
  } finally {
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
}

Deno.test({
  name:
    "red team: an ACP agent racing names (renameat2) never lands a write outside or reads the key (bwrap)",
  ignore: racerSkip !== null || skipReason !== null,
  fn: () => race(true),
});

Deno.test({
  name: "red team: the same race under --sandbox none is held by the descriptor walk",
  ignore: racerSkip !== null,
  fn: () => race(false),
});
