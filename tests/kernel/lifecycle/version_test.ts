/**
 * `KERNEL_LIFECYCLE_VERSION` is guarded by a fingerprint of BEHAVIOUR: the
 * actions `step` emits over a fixed corpus of event streams (fast-check
 * scenarios from fixed seeds, over the default and random policies, plus the
 * tables themselves). Any change to what the same events produce (a
 * destination, a reason, a notify level, an action field) changes the
 * fingerprint, so recorded logs would no longer replay: bump the version and
 * re-pin. A log recorded under an older version replays as `other_kernel`.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import fc from "fast-check";
import {
  defaultPolicy,
  ENTRY,
  KERNEL_LIFECYCLE_VERSION,
  type PolicySnapshot,
  TRANSITIONS,
} from "../../../kernel/lifecycle/mod.ts";
import { replayKernelRecords } from "../../../adapters/log/replay.ts";
import { lifecycleReplayKernel } from "../../../adapters/audit/kernel_replay.ts";
import { cmdArb, policyArb, runScenario } from "./scenario.ts";

const PINNED: Readonly<Record<string, string>> = {
  "vouch.lifecycle/3": "c2acc2c63545800005d855a89c7752a16874c9e2810c099247075bddf0385e30",
  "vouch.lifecycle/4": "2fed63e9d67e4bf870ea9afd89634854859a98681824ab808d6d134ed4063c13",
  "vouch.lifecycle/5": "cc7fbcc78bb486cf55e3cd70f2704e7419faf9796d73feb6903433895598dd55",
};

/** The fixed corpus: 60 streams from fixed seeds (fast-check is pinned by deno.lock). */
function corpus(): { cmds: Parameters<typeof runScenario>[0]; policy: PolicySnapshot }[] {
  const streams = fc.sample(fc.array(cmdArb, { minLength: 40, maxLength: 120 }), {
    seed: 20_261_201,
    numRuns: 60,
  });
  const policies = fc.sample(policyArb, { seed: 9, numRuns: 60 });
  return streams.map((cmds, i) => ({ cmds, policy: i % 3 === 0 ? defaultPolicy() : policies[i]! }));
}

/** sha256 over the tables and every (event, actions) pair of the corpus. */
export function behaviourFingerprint(): string {
  const hash = createHash("sha256");
  hash.update(JSON.stringify({ TRANSITIONS, ENTRY }));
  let steps = 0;
  for (const { cmds, policy } of corpus()) {
    for (const s of runScenario(cmds, policy).steps) {
      hash.update(JSON.stringify([s.event, s.actions]));
      steps++;
    }
  }
  hash.update(String(steps));
  return hash.digest("hex");
}

Deno.test("the lifecycle's behaviour cannot change without a new KERNEL_LIFECYCLE_VERSION", () => {
  const fingerprint = behaviourFingerprint();
  assert.equal(
    fingerprint,
    PINNED[KERNEL_LIFECYCLE_VERSION],
    `step's actions changed under ${KERNEL_LIFECYCLE_VERSION}: bump the version and pin ${fingerprint}`,
  );
});

Deno.test("the fingerprint corpus reaches every status and sees terminal notifications", () => {
  const statuses = new Set<string>();
  const notified = new Set<string>();
  for (const { cmds, policy } of corpus()) {
    for (const s of runScenario(cmds, policy).steps) {
      if (s.after !== null) statuses.add(s.after);
      for (const a of s.actions) if (a.kind === "notify") notified.add(`${a.status}:${a.level}`);
    }
  }
  for (const status of Object.keys(ENTRY)) {
    assert.ok(statuses.has(status), `never reached ${status}`);
  }
  for (
    const n of ["completed:info", "rejected:warn", "failed:warn", "killed:warn", "paused:warn"]
  ) {
    assert.ok(notified.has(n), `never notified ${n}`);
  }
});

Deno.test("a log recorded under vouch.lifecycle/2 replays as other_kernel, not as divergent", () => {
  const records = [
    {
      seq: 1,
      task: null,
      kind: "kernel.init",
      body: { config: defaultPolicy(), kernel: "vouch.lifecycle/2" },
    },
    {
      seq: 2,
      task: "t1",
      kind: "kernel.event",
      body: { v: 1, kind: "timer_tick", id: "e1", seq: 1, at: 5, taskId: "t1" },
    },
    { seq: 3, task: "t1", kind: "kernel.actions", body: { forSeq: 2, actions: [] } },
  ];
  const result = replayKernelRecords(records as never, lifecycleReplayKernel);
  assert.equal(result.status, "other_kernel");
  if (result.status === "other_kernel") {
    assert.equal(result.recorded, "vouch.lifecycle/2");
    assert.equal(result.running, KERNEL_LIFECYCLE_VERSION);
  }
});
