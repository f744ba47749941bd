/**
 * Check slots bound how many verifications run their commands at once, across
 * verifiers (`vouch batch`): with one slot, two verifications started together
 * never overlap in their checks (a check that fails when another holds the
 * lock directory passes in both); with two slots they do overlap (a check that
 * passes only once it has seen the other one start passes in both). Neither
 * half depends on timing: the rendezvous waits up to 15 minutes (a broken
 * slot count fails then) and nothing else has a deadline, so a busy machine
 * only makes it slower. Real git, real processes (unsandboxed, so both checks
 * see the same directories).
 */
import assert from "node:assert/strict";
import { createRepo, git } from "../../golden/fixture_repos.ts";
import { createCleanVerifier } from "../../../adapters/verification/clean_verifier.ts";
import { createCheckSlots } from "../../../adapters/verification/check_slots.ts";
import { EventLog } from "../../../adapters/log/store.ts";
import { importMacKey } from "../../../adapters/keys/mac_key.ts";
import { ReceiptRecorder } from "../../../adapters/receipts/chain.ts";
import type { OutcomeContract } from "../../../kernel/contract/types.ts";

const key = await importMacKey(new Uint8Array(32).fill(9), "test");

/** A check that holds `lock` for 800 ms and fails if another check holds it. */
function lockingContract(lock: string): OutcomeContract {
  return {
    description: "exclusive",
    checks: [{
      name: "exclusive",
      run: { shell: `mkdir '${lock}' && sleep 0.8 && rmdir '${lock}'` },
      expect: [{ kind: "exit-zero" }],
      timeoutMs: 900_000,
      baseline: false,
      differential: null,
      tests: null,
    }],
    protect: [],
  };
}

/**
 * A check that passes only when both checks are running at once: each leaves a
 * marker in `dir` and waits (at most 15 minutes) until it sees two.
 */
function rendezvousContract(dir: string): OutcomeContract {
  return {
    description: "overlap",
    checks: [{
      name: "overlap",
      run: {
        shell: `touch '${dir}'/m-$$; i=0; while [ "$(ls '${dir}' | wc -l)" -lt 2 ]; do ` +
          `i=$((i+1)); [ $i -gt 9000 ] && exit 1; sleep 0.1; done`,
      },
      expect: [{ kind: "exit-zero" }],
      timeoutMs: 1_800_000,
      baseline: false,
      differential: null,
      tests: null,
    }],
    protect: [],
  };
}

async function twoAtOnce(
  slots: number,
  contractOf: (dir: string) => OutcomeContract,
): Promise<boolean[]> {
  const repo = await createRepo({ "README.md": "# x\n" }, "true", { prefix: "vouch-slots-" });
  const dir = await Deno.makeTempDir({ prefix: "vouch-slots-state-" });
  const log = await EventLog.open(`${dir}/events.jsonl`);
  try {
    const base = (await git(repo.dir, "rev-parse", "HEAD")).trim();
    const receipts = ReceiptRecorder.resume(log, key, log.openReport.lastReceipt);
    await Deno.mkdir(`${dir}/meet`);
    const shared = createCheckSlots(slots);
    const verifiers = [1, 2].map((n) =>
      createCleanVerifier({
        repo: repo.dir,
        base,
        taskId: `t-slots-${n}`,
        contract: contractOf(dir),
        receipts,
        sandbox: "none",
        worktreeRoot: `${dir}/trees`,
        checkSlots: shared,
      })
    );
    const runs = await Promise.all(
      verifiers.map((v) => v.verify(1, new Uint8Array(), new AbortController().signal, () => {})),
    );
    await Promise.all(verifiers.map((v) => v.settle()));
    return runs.map((r) => r.passed);
  } finally {
    await log.close();
    await repo.cleanup();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("check slots: one slot serializes two verifications' checks; two let them overlap", async () => {
  // One slot: the checks never overlap, so neither finds the lock taken.
  assert.deepEqual(await twoAtOnce(1, (dir) => lockingContract(`${dir}/lock`)), [true, true]);
  // Two slots: both checks run at once, so each sees the other's marker.
  assert.deepEqual(await twoAtOnce(2, (dir) => rendezvousContract(`${dir}/meet`)), [true, true]);
});
