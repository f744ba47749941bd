import assert from "node:assert/strict";
import { importMacKey } from "../../../adapters/keys/mod.ts";
import { GENESIS_HASH } from "../../../adapters/log/mod.ts";
import { mintReceipt, receiptDigest, type ToolReceipt } from "../../../adapters/receipts/mod.ts";
import {
  assertVerifiedPatch,
  complete,
  integrate,
  type IntegrationOps,
  type MintInput,
  mintVerifiedPatch,
  type NewBranchCommit,
  openPullRequest,
  type UnverifiedPatch,
  VerifiedPatch,
  verifyVerifiedPatchJson,
} from "../../../adapters/verified_patch/mod.ts";

const key = await importMacKey(new Uint8Array(32).fill(5), "memory");
const otherKey = await importMacKey(new Uint8Array(32).fill(6), "memory");
const zero = { digest: "sha256:" + "0".repeat(64), bytes: 0 };
const diff = new TextEncoder().encode(
  "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
);

async function receipt(task = "t1", k = key): Promise<ToolReceipt> {
  return await mintReceipt(k, {
    task,
    tool: "check:unit",
    argv: ["deno", "test"],
    cwd: "/w",
    sandboxProfile: "bwrap",
    envNames: ["PATH"],
    startedAt: 1,
    endedAt: 2,
    exit: { code: 0, signal: null, timedOut: false },
    stdout: zero,
    stderr: zero,
  }, { anchor: { seq: 0, hash: GENESIS_HASH }, prevReceipt: GENESIS_HASH });
}

const unverified: UnverifiedPatch = {
  kind: "unverified_patch",
  task: "t1",
  baseRevision: "0123456789abcdef0123456789abcdef01234567",
  diff,
  backend: "function:test",
};

async function mintInput(r?: ToolReceipt): Promise<MintInput> {
  const rc = r ?? await receipt();
  return {
    patch: unverified,
    contractDigest: "sha256:" + "c".repeat(64),
    checks: [{ id: "unit", outcome: "pass", receipt: receiptDigest(rc) }],
    receipts: [rc],
    passedAt: 1_700_000_000_000,
    sandboxProfile: "bwrap",
    logAnchor: { seq: 3, hash: "d".repeat(64) },
  };
}

const recordingOps = () => {
  const calls: NewBranchCommit[] = [];
  const ops: IntegrationOps = {
    commitOnNewBranch(request) {
      calls.push(request);
      return Promise.resolve({ commit: "f".repeat(40) });
    },
  };
  return { calls, ops };
};

Deno.test("mintVerifiedPatch() mints a sealed patch that integrate/complete accept", async () => {
  const vp = await mintVerifiedPatch(key, await mintInput());
  assert.ok(VerifiedPatch.isVerifiedPatch(vp));
  assert.ok(Object.isFrozen(vp));
  assert.deepEqual(vp.diff, diff);
  assert.equal(await assertVerifiedPatch(vp, key), vp);
  const { calls, ops } = recordingOps();
  const result = await integrate(
    vp,
    { repoRoot: "/r", branch: "vouch/t1", message: "Fix" },
    ops,
    key,
  );
  assert.equal(result.commit, "f".repeat(40));
  assert.deepEqual(calls[0]!.diff, diff);
  assert.equal(calls[0]!.baseRevision, unverified.baseRevision);
  const done = await complete(vp, key);
  assert.equal(done.checks, 1);
  const pr = await openPullRequest(vp, { branch: "vouch/t1", title: "Fix" }, {
    openPullRequest: (req) => Promise.resolve({ url: `https://example.invalid/${req.branch}` }),
  }, key);
  assert.equal(pr.url, "https://example.invalid/vouch/t1");
  // the JSON form verifies as evidence
  const json = JSON.parse(JSON.stringify(vp));
  assert.equal((await verifyVerifiedPatchJson(json, key)).patchDigest, vp.patchDigest);
  await assert.rejects(verifyVerifiedPatchJson({ ...json, passedAt: 1 }, key), { code: "bad_mac" });
});

Deno.test("mintVerifiedPatch() fails closed", async () => {
  const base = await mintInput();
  const cases: [Partial<MintInput>, string][] = [
    [{ checks: [] }, "checks_failed"],
    [{ checks: [{ ...base.checks[0]!, outcome: "fail" }] }, "checks_failed"],
    [{ checks: [{ ...base.checks[0]!, outcome: "inconclusive" }] }, "checks_failed"],
    [{ checks: [{ ...base.checks[0]!, receipt: "sha256:" + "e".repeat(64) }] }, "bad_receipt"],
    [{ receipts: [await receipt("t1", otherKey)] }, "bad_receipt"],
    [
      { receipts: [{ ...base.receipts[0]!, exit: { code: 1, signal: null, timedOut: false } }] },
      "bad_receipt",
    ],
    [{ receipts: [await receipt("other-task")] }, "bad_receipt"],
    [{ contractDigest: "nope" }, "invalid_input"],
  ];
  for (const [change, code] of cases) {
    await assert.rejects(
      mintVerifiedPatch(key, { ...base, ...change }),
      { code },
      JSON.stringify(change),
    );
  }
});

Deno.test("forged VerifiedPatch objects are rejected at run time", async () => {
  const vp = await mintVerifiedPatch(key, await mintInput());
  const { calls, ops } = recordingOps();
  const target = { repoRoot: "/r", branch: "vouch/t1", message: "Fix" };
  const forgeries: [string, unknown, string][] = [
    ["plain object copy", { ...vp, diff }, "forged"],
    ["JSON-parsed", JSON.parse(JSON.stringify(vp)), "forged"],
    [
      "prototype trick",
      Object.assign(Object.create(VerifiedPatch.prototype), vp.toJSON()),
      "forged",
    ],
    ["unverified cast", unverified as unknown as VerifiedPatch, "forged"],
    ["null", null, "forged"],
    [
      "tampered field",
      Object.setPrototypeOf(
        { ...vp, patchDigest: "sha256:" + "0".repeat(64) },
        VerifiedPatch.prototype,
      ),
      "forged",
    ],
  ];
  for (const [name, forged, code] of forgeries) {
    await assert.rejects(assertVerifiedPatch(forged, key), { code }, name);
    await assert.rejects(integrate(forged as VerifiedPatch, target, ops, key), { code }, name);
    await assert.rejects(complete(forged as VerifiedPatch, key), { code }, name);
  }
  // the constructor refuses anything but the module-private token
  assert.throws(
    () =>
      new VerifiedPatch(Symbol("vouch.verified_patch.mint") as never, vp.toJSON(), vp.mac, diff),
    { code: "forged" },
  );
  // a real patch checked under another key
  await assert.rejects(assertVerifiedPatch(vp, otherKey), { code: "bad_mac" });
  // fields cannot be changed in place
  assert.throws(() => {
    (vp as unknown as { patchDigest: string }).patchDigest = "x";
  }, TypeError);
  assert.throws(() => {
    (vp.checks[0] as unknown as { outcome: string }).outcome = "fail";
  }, TypeError);
  // the diff getter hands out copies
  vp.diff[0] = 0;
  await assertVerifiedPatch(vp, key);
  assert.equal(calls.length, 0, "no forged patch reached the git operations");
  // a bad branch name never reaches git either
  await assert.rejects(integrate(vp, { ...target, branch: "--upload-pack=x" }, ops, key), {
    code: "invalid_input",
  });
});

Deno.test("an UnverifiedPatch does not type-check where a VerifiedPatch is required", async () => {
  const { ops } = recordingOps();
  const target = { repoRoot: "/r", branch: "vouch/t1", message: "Fix" };
  const attempt = async () => {
    // @ts-expect-error an UnverifiedPatch is not a VerifiedPatch
    await integrate(unverified, target, ops, key);
  };
  const attemptComplete = async () => {
    // @ts-expect-error a structurally similar plain object is not a VerifiedPatch either
    await complete({ ...(await mintVerifiedPatch(key, await mintInput())) }, key);
  };
  await assert.rejects(attempt, { code: "forged" });
  await assert.rejects(attemptComplete, { code: "forged" });
});
