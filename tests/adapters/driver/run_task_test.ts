import assert from "node:assert/strict";
import type { AgentBackend, AgentTask, BackendResult } from "../../../adapters/backends/types.ts";
import { contractFromCommand } from "../../../adapters/verification/clean_verifier.ts";
import { runInRepo } from "../../../adapters/driver/run_in_repo.ts";
import { loadOrCreateMacKey } from "../../../adapters/keys/mac_key.ts";
import { assertVerifiedPatch } from "../../../adapters/verified_patch/verified_patch.ts";
import { readLogFile } from "../../../adapters/log/store.ts";
import { receiptDigest, type ToolReceipt } from "../../../adapters/receipts/receipt.ts";
import { replayKernelRecords } from "../../../adapters/log/replay.ts";
import { defaultPolicy, initialKernelState, step } from "../../../kernel/lifecycle/mod.ts";
import type { KernelEvent, KernelState, PolicySnapshot } from "../../../kernel/lifecycle/mod.ts";
import {
  createDenoRepo,
  createNodeRepo,
  type FixtureRepo,
  git,
  snapshot,
  snapshotDifferences,
} from "../../golden/fixture_repos.ts";

/** A scripted in-process backend: each round runs the next edit function. */
function scripted(
  rounds: ((task: AgentTask) => Promise<boolean>)[],
  failure?: { retryable: boolean },
): AgentBackend {
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
      if (failure !== undefined) {
        return {
          backend: "scripted",
          status: "error",
          summary: "boom",
          selfClaimedDone: false,
          commandsRun: [],
          risks: [],
          usage: {},
          transcript: null,
          exitCode: 1,
          protocolIssues: 0,
          failure: {
            code: failure.retryable ? "spawn_failed" : "protocol",
            message: "scripted failure",
            retryable: failure.retryable,
          },
        };
      }
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
      keyEnv: { VOUCH_KEY_FILE: `${keyDir}/key`, XDG_STATE_HOME: `${keyDir}/state` },
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
    // runInRepo hands back the minted VerifiedPatch itself, which passes the gate under the key.
    const key = await loadOrCreateMacKey({
      repoRoot: repo.dir,
      env: { VOUCH_KEY_FILE: `${keyDir}/key`, XDG_STATE_HOME: `${keyDir}/state` },
      create: false,
    });
    const verified = await assertVerifiedPatch(outcome.verifiedPatch, key);
    assert.equal(new TextDecoder().decode(verified.diff), patch);
    assert.equal(outcome.verifiedPatchPath, `${outcome.artefactsDir}/verified_patch.json`);
    assert.ok(seen.includes("baseline") && seen.includes("verify"));
    // The verified patch is also exported as a signed in-toto attestation (DSSE).
    const envelope = JSON.parse(
      await Deno.readTextFile(`${outcome.artefactsDir}/attestation.json`),
    );
    assert.equal(envelope.payloadType, "application/vnd.in-toto+json");
    assert.equal(envelope.signatures.length, 1);
    const receipts = JSON.parse(
      await Deno.readTextFile(`${outcome.artefactsDir}/round-2/receipts.json`),
    );
    assert.equal(receipts.length, 1);
    assert.match(receipts[0].mac, /^[0-9a-f]{64}$/);
    // Every baseline/verification result the kernel acted on names the receipts it rests on.
    const logged = await readLogFile(outcome.logPath);
    const receiptDigests = new Set(
      logged.records.filter((rec) => rec.kind === "tool.receipt").map((rec) =>
        receiptDigest(rec.body as unknown as ToolReceipt)
      ),
    );
    const results = logged.records.flatMap((rec) => {
      const body = rec.body as { kind?: string; checks?: { receipts: string[] }[] };
      return rec.kind === "kernel.event" &&
          (body.kind === "baseline_result" || body.kind === "verification_result")
        ? [body]
        : [];
    });
    assert.equal(results.length, 2, "one baseline and one verification (round 1 changed nothing)");
    for (const result of results) {
      for (const check of result.checks ?? []) {
        assert.equal(check.receipts.length, 1, JSON.stringify(check));
        assert.ok(receiptDigests.has(check.receipts[0]!), `unknown receipt ${check.receipts[0]}`);
      }
    }
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

async function withRepo(
  fn: (repo: FixtureRepo, state: string) => Promise<void>,
  make: () => Promise<FixtureRepo> = createDenoRepo,
): Promise<void> {
  const repo = await make();
  const state = await Deno.makeTempDir();
  try {
    await fn(repo, state);
  } finally {
    await repo.cleanup();
    await Deno.remove(state, { recursive: true });
  }
}

function baseOptions(repo: FixtureRepo, state: string) {
  return {
    dir: repo.dir,
    goal: "make the tests pass",
    contract: contractFromCommand(repo.verify, 60_000),
    maxRounds: 2,
    wallTimeMs: 120_000,
    sandbox: "none" as const,
    keyEnv: { VOUCH_KEY_FILE: `${state}/key`, XDG_STATE_HOME: `${state}/state` },
    worktreeRoot: `${state}/wt`,
  };
}

Deno.test("runTask: --integrate with approval commits on a new branch, checkout untouched", async () => {
  await withRepo(async (repo, state) => {
    const before = await snapshot(repo.dir);
    const head = await git(repo.dir, "rev-parse", "HEAD");
    const asked: string[] = [];
    const outcome = await runInRepo({
      ...baseOptions(repo, state),
      backend: scripted([fixAdd]),
      integrate: {
        branch: "vouch/fix-add",
        approver: "test",
        approve: (q) => (asked.push(q.patchDigest), Promise.resolve(true)),
      },
    });
    assert.equal(outcome.state, "verified", outcome.message);
    assert.equal(outcome.reason, "integrated");
    assert.equal(asked.length, 1);
    assert.equal(asked[0], outcome.patchDigest);
    const branch = (await git(repo.dir, "rev-parse", "refs/heads/vouch/fix-add")).trim();
    assert.equal(branch, outcome.integrated?.commit);
    assert.equal((await git(repo.dir, "rev-parse", `${branch}^`)).trim(), head.trim());
    assert.match(await git(repo.dir, "show", `${branch}:math.ts`), /a \+ b/);
    // The only change in the checkout is the new branch ref.
    const diff = snapshotDifferences(before, await snapshot(repo.dir));
    assert.deepEqual(diff, [".git refs"]);
  });
});

Deno.test("runTask: integration refused by the human ends rejected (approval_denied)", async () => {
  await withRepo(async (repo, state) => {
    const outcome = await runInRepo({
      ...baseOptions(repo, state),
      backend: scripted([fixAdd]),
      integrate: { branch: "vouch/x", approver: "test", approve: () => Promise.resolve(false) },
    });
    assert.equal(outcome.state, "rejected");
    assert.equal(outcome.reason, "approval_denied");
    assert.equal(outcome.exitCode, 1);
    await assert.rejects(git(repo.dir, "rev-parse", "--verify", "refs/heads/vouch/x"));
  });
});

Deno.test("runTask: a non-retryable backend failure ends backend_failed after one round", async () => {
  await withRepo(async (repo, state) => {
    const outcome = await runInRepo({
      ...baseOptions(repo, state),
      maxRounds: 3,
      backend: scripted([claimOnly], { retryable: false }),
    });
    assert.equal(outcome.state, "backend_failed");
    assert.equal(outcome.exitCode, 4);
    assert.equal(outcome.rounds.length, 1);
    assert.equal((await replay(outcome.logPath)).status, "deterministic");
  });
});

Deno.test("runTask: retryable failures in every round end backend_failed", async () => {
  await withRepo(async (repo, state) => {
    const seen: { phase: string; detail?: string }[] = [];
    const outcome = await runInRepo({
      ...baseOptions(repo, state),
      backend: scripted([claimOnly], { retryable: true }),
      onProgress: (p) => seen.push({ phase: p.phase, ...(p.detail ? { detail: p.detail } : {}) }),
    });
    assert.equal(outcome.state, "backend_failed");
    // The live line never calls it a rejection (the renderer's "rejected after N rounds").
    const paused = seen.filter((p) => p.phase === "paused");
    assert.deepEqual(paused, [{ phase: "paused", detail: "backend_failed" }]);
    assert.equal(outcome.rounds.length, 2);
    // Each round's real diff was still extracted: it was empty, so each is a failed round.
    for (const r of outcome.rounds) {
      assert.equal(r.backendStatus, "error");
      assert.deepEqual(r.reasons, ["backend_error_no_change"]);
    }
  });
});

Deno.test("runTask: a backend that fixes the bug but reports failure is verified (the claim decides nothing)", async () => {
  await withRepo(async (repo, state) => {
    const before = await snapshot(repo.dir);
    const outcome = await runInRepo({
      ...baseOptions(repo, state),
      maxRounds: 1,
      backend: scripted([fixAdd], { retryable: false }),
    });
    assert.equal(outcome.state, "verified", outcome.message);
    assert.equal(outcome.exitCode, 0);
    assert.equal(outcome.rounds.length, 1);
    assert.equal(outcome.rounds[0]?.backendStatus, "error");
    assert.equal(outcome.rounds[0]?.selfClaimedDone, false);
    assert.deepEqual(outcome.rounds[0]?.filesChanged, ["math.ts"]);
    assert.equal(outcome.rounds[0]?.verdict, "verified");
    // The failure claim is kept as evidence, beside vouch's own verdict.
    const claim = JSON.parse(
      await Deno.readTextFile(`${outcome.artefactsDir}/round-1/backend_result.json`),
    );
    assert.equal(claim.status, "error");
    assert.equal(claim.failure.code, "protocol");
    const log = await readLogFile(outcome.logPath);
    assert.ok(JSON.stringify(log.records).includes('"backend_reported_error"'));
    assert.equal((await replay(outcome.logPath)).status, "deterministic");
    assert.deepEqual(snapshotDifferences(before, await snapshot(repo.dir)), []);
  });
});

Deno.test("runTask: a reported failure with a wrong fix is rejected by verification, not as a backend failure", async () => {
  const breakMore = async (task: AgentTask) => {
    const file = `${task.worktree}/math.ts`;
    await Deno.writeTextFile(file, (await Deno.readTextFile(file)).replace("a - b", "a * b"));
    return false;
  };
  await withRepo(async (repo, state) => {
    const outcome = await runInRepo({
      ...baseOptions(repo, state),
      maxRounds: 1,
      backend: scripted([breakMore], { retryable: true }),
    });
    assert.equal(outcome.state, "rejected", outcome.message);
    assert.equal(outcome.reason, "max_rounds");
    assert.equal(outcome.rounds[0]?.checks[0]?.passed, false);
  });
});

Deno.test("runTask: a same-size rewrite of an untracked checkout file with its mtime restored is rejected", async () => {
  await withRepo(async (repo, state) => {
    const notes = `${repo.dir}/NOTES.txt`;
    await Deno.writeTextFile(notes, "user draft A\n"); // the user's own untracked file
    const stealthy = async (task: AgentTask) => {
      await fixAdd(task);
      // Unconfined worker: rewrites the user's file in place, same size, mtime put back.
      const ref = `${state}/mtime-ref`;
      const touch = (args: string[]) => new Deno.Command("touch", { args }).output();
      await touch(["-r", notes, ref]);
      await Deno.writeTextFile(notes, "user draft B\n");
      await touch(["-r", ref, notes]);
      return true;
    };
    const before = await Deno.stat(notes);
    const outcome = await runInRepo({
      ...baseOptions(repo, state),
      maxRounds: 1,
      backend: scripted([stealthy]),
    });
    const after = await Deno.stat(notes);
    assert.equal(after.size, before.size);
    assert.equal(after.mtime?.getTime(), before.mtime?.getTime());
    assert.equal(outcome.state, "rejected", outcome.message);
    assert.equal(outcome.reason, "scope_violation");
    assert.ok(outcome.rounds[0]?.reasons.includes("outside_worktree_write"));
    const inspection = JSON.parse(
      await Deno.readTextFile(`${outcome.artefactsDir}/round-1/inspection.json`),
    );
    const paths = inspection.violations.map((v: { path: string }) => v.path);
    assert.ok(paths.includes(notes), paths.join(","));
  });
});

Deno.test("runTask: a contract that cannot run is refused before the backend runs", async () => {
  await withRepo(async (repo, state) => {
    let ran = false;
    const outcome = await runInRepo({
      ...baseOptions(repo, state),
      contract: {
        description: "a runner that does not exist",
        checks: [{
          name: "tests",
          run: { argv: ["/nonexistent/test-runner"] },
          expect: [{ kind: "exit-zero" }],
          timeoutMs: 10_000,
          baseline: false,
          differential: null,
          tests: null,
        }],
        protect: [],
      },
      backend: scripted([() => (ran = true, Promise.resolve(true))]),
    });
    // A check that cannot start is "could not run" (exit 5), saying which and why (issue #11).
    assert.equal(outcome.state, "could_not_run");
    assert.equal(outcome.exitCode, 5);
    assert.equal(outcome.reason, "verify_command_cannot_start");
    assert.match(outcome.message, /check `tests` cannot start at the base revision/);
    assert.match(outcome.message, /\/nonexistent\/test-runner/);
    assert.equal(ran, false);
    assert.equal(outcome.rounds.length, 0);
  });
});

Deno.test("runTask: a patch changing a dependency manifest is refused (needs a setup step)", async () => {
  await withRepo(async (repo, state) => {
    const outcome = await runInRepo({
      ...baseOptions(repo, state),
      maxRounds: 1,
      backend: scripted([async (task) => {
        const file = `${task.worktree}/index.js`;
        await Deno.writeTextFile(
          file,
          (await Deno.readTextFile(file)).replace("Number(x) + 2", "Number(x) * 2"),
        );
        const pkg = `${task.worktree}/package.json`;
        await Deno.writeTextFile(
          pkg,
          (await Deno.readTextFile(pkg)).replace(
            '"is-number": "7.0.0"',
            '"is-number": "7.0.0", "left-pad": "1.3.0"',
          ),
        );
        return true;
      }]),
    });
    assert.equal(outcome.state, "rejected");
    assert.ok(
      outcome.rounds[0]?.reasons.includes("dependency_change_needs_setup"),
      JSON.stringify(outcome.rounds),
    );
  }, createNodeRepo);
});

Deno.test("runTask: an fn backend may hand over its patch as text; it is applied and verified", async () => {
  await withRepo(async (repo, state) => {
    const { fnBackend } = await import("../../../adapters/backends/fn_backend.ts");
    const patch = [
      "diff --git a/math.ts b/math.ts",
      "--- a/math.ts",
      "+++ b/math.ts",
      "@@ -1,3 +1,3 @@",
      " export function add(a: number, b: number): number {",
      "-  return a - b;",
      "+  return a + b;",
      " }",
      "",
    ].join("\n");
    const outcome = await runInRepo({
      ...baseOptions(repo, state),
      backend: fnBackend("text-patcher", () => Promise.resolve({ patchText: patch, done: true })),
    });
    assert.equal(outcome.state, "verified", outcome.message);
    assert.deepEqual(outcome.rounds[0]?.filesChanged, ["math.ts"]);
  });
});

Deno.test("runTask: 'make the tests pass' with tests already passing gates nothing: refused", async () => {
  await withRepo(async (repo, state) => {
    let ran = false;
    const outcome = await runInRepo({
      ...baseOptions(repo, state),
      contract: contractFromCommand("true", 10_000),
      backend: scripted([() => (ran = true, Promise.resolve(true))]),
    });
    assert.equal(outcome.state, "rejected");
    assert.equal(outcome.reason, "baseline_gates_nothing");
    assert.equal(ran, false);
  });
});
