import assert from "node:assert/strict";
import type { AgentBackend, AgentTask, BackendResult } from "../../../adapters/backends/types.ts";
import { contractFromCommand } from "../../../adapters/supervisor/clean_verifier.ts";
import { runInRepo } from "../../../adapters/driver/run_in_repo.ts";
import { readLogFile } from "../../../adapters/log/store.ts";
import { replayKernelRecords } from "../../../adapters/log/replay.ts";
import { defaultPolicy, initialKernelState, step } from "../../../kernel/lifecycle/mod.ts";
import type { KernelEvent, KernelState, PolicySnapshot } from "../../../kernel/lifecycle/mod.ts";
import { createDenoRepo, snapshot, snapshotDifferences } from "../../golden/fixture_repos.ts";

/** A scripted in-process backend: each round runs the next edit function. */
function scripted(rounds: ((task: AgentTask) => Promise<boolean>)[]): AgentBackend {
  return {
    id: "scripted",
    capabilities: () => ({
      streaming: false,
      editsWorktree: true,
      reportsUsage: false,
      subprocess: false,
    }),
    async run(task): Promise<BackendResult> {
      const edit = rounds[Math.min(task.attempt, rounds.length) - 1]!;
      const claimed = await edit(task);
      return {
        backend: "scripted",
        status: "ok",
        summary: claimed ? "done" : "not done",
        selfClaimedDone: claimed,
        commandsRun: [],
        risks: [],
        usage: {},
        transcript: null,
        exitCode: null,
        protocolIssues: 0,
      };
    },
  };
}

const claimOnly = () => Promise.resolve(true);
const fixAdd = async (task: AgentTask) => {
  const file = `${task.worktree}/math.ts`;
  await Deno.writeTextFile(file, (await Deno.readTextFile(file)).replace("a - b", "a + b"));
  return true;
};

async function replay(logPath: string) {
  const log = await readLogFile(logPath);
  assert.equal(log.status, "ok");
  return replayKernelRecords<KernelState, KernelEvent, unknown>(log.records, {
    initial: (config) => initialKernelState((config as PolicySnapshot | null) ?? defaultPolicy()),
    step: (s, e) => step(s, e),
  });
}

Deno.test("runTask: a claimed-but-unfixed round is rejected, the fix round is verified", async () => {
  const repo = await createDenoRepo();
  const keyDir = await Deno.makeTempDir();
  try {
    const before = await snapshot(repo.dir);
    const seen: string[] = [];
    const outcome = await runInRepo({
      dir: repo.dir,
      goal: "make the tests pass",
      backend: scripted([claimOnly, fixAdd]),
      contract: contractFromCommand(repo.verify, 60_000),
      maxRounds: 3,
      wallTimeMs: 120_000,
      sandbox: "none",
      keyEnv: { VOUCH_KEY_FILE: `${keyDir}/key` },
      worktreeRoot: `${keyDir}/wt`,
      onProgress: (p) => seen.push(p.phase),
    });
    assert.equal(outcome.state, "verified", outcome.message);
    assert.equal(outcome.exitCode, 0);
    assert.equal(outcome.rounds.length, 2);
    assert.equal(outcome.rounds[0]?.verdict, "rejected");
    assert.ok(outcome.rounds[0]?.reasons.includes("empty_patch"));
    assert.equal(outcome.rounds[1]?.verdict, "verified");
    assert.deepEqual(outcome.rounds[1]?.filesChanged, ["math.ts"]);
    assert.equal(outcome.baseline[0]?.passed, false);
    assert.ok(outcome.patchFile !== null);
    const patch = await Deno.readTextFile(outcome.patchFile);
    assert.match(patch, /\+ {2}return a \+ b;/);
    assert.ok(seen.includes("baseline") && seen.includes("verify"));
    const r = await replay(outcome.logPath);
    assert.equal(r.status, "deterministic", JSON.stringify(r));
    assert.deepEqual(snapshotDifferences(before, await snapshot(repo.dir)), []);
    const exclude = await Deno.readTextFile(`${repo.dir}/.git/info/exclude`);
    assert.match(exclude, /^\.vouch\/$/m);
    // No worktree is left behind.
    const left = [...Deno.readDirSync(`${keyDir}/wt`)].flatMap((e) =>
      e.isDirectory ? [...Deno.readDirSync(`${keyDir}/wt/${e.name}`)] : []
    );
    assert.deepEqual(left, []);
  } finally {
    await repo.cleanup();
    await Deno.remove(keyDir, { recursive: true });
  }
});
