import assert from "node:assert/strict";
import { checkEvidenceBinding } from "../../../adapters/audit/evidence_binding.ts";
import { importMacKey } from "../../../adapters/keys/mod.ts";
import { GENESIS_HASH, type LogHead, type LogRecord } from "../../../adapters/log/mod.ts";
import { frameRecord } from "../../../adapters/log/record.ts";
import { mintReceipt, receiptDigest, type ToolReceipt } from "../../../adapters/receipts/mod.ts";

const key = await importMacKey(new Uint8Array(32).fill(3), "memory");
const zero = { digest: "sha256:" + "0".repeat(64), bytes: 0 };

async function receipt(
  tool: string,
  code: number,
  outcome?: "pass" | "fail",
  task = "t1",
): Promise<ToolReceipt> {
  return await mintReceipt(key, {
    task,
    tool,
    argv: ["true"],
    cwd: "/w",
    sandboxProfile: "none",
    envNames: [],
    startedAt: 1,
    endedAt: 2,
    exit: { code, signal: null, timedOut: false },
    stdout: zero,
    stderr: zero,
    ...(outcome !== undefined ? { outcome } : {}),
  }, { anchor: { seq: 0, hash: GENESIS_HASH }, prevReceipt: GENESIS_HASH });
}

function log(receipts: readonly ToolReceipt[], events: readonly unknown[]): LogRecord[] {
  let head: LogHead = { seq: 0, hash: GENESIS_HASH };
  const out: LogRecord[] = [];
  const add = (kind: string, body: unknown) => {
    const { record } = frameRecord(head, { task: "t1", kind, body }, 0);
    head = record;
    out.push(record);
  };
  for (const r of receipts) add("tool.receipt", r);
  for (const e of events) add("kernel.event", e);
  return out;
}

const result = (checks: unknown, setupReceipts: readonly string[] = []) => ({
  v: 1,
  kind: "verification_result",
  id: "e9",
  seq: 9,
  at: 0,
  taskId: "t1",
  effectId: "t1:contract:1",
  round: 0,
  checks,
  setupReceipts,
});

Deno.test("evidence binding: outcomes sealed in their receipts bind, and the count is reported", async () => {
  const unit = await receipt("round:unit", 0, "pass");
  const lint = await receipt("round:lint", 1, "fail");
  const report = checkEvidenceBinding(log([unit, lint], [result([
    { id: "unit", outcome: "pass", receipts: [receiptDigest(unit)] },
    { id: "lint", outcome: "fail", receipts: [receiptDigest(lint)] },
    { id: "apply_failed", outcome: "fail", receipts: [] },
  ])]));
  assert.deepEqual(report, { events: 1, checks: 3, issue: null });
});

Deno.test("evidence binding: a receipt of another task is a mismatch", async () => {
  const other = await receipt("round:unit", 0, "pass", "t2");
  const report = checkEvidenceBinding(log([other], [result([
    { id: "unit", outcome: "pass", receipts: [receiptDigest(other)] },
  ])]));
  assert.equal(report.issue?.code, "receipt_mismatch");
  assert.match(report.issue!.detail, /receipt of task "t2"/);
  assert.equal(report.issue?.line, 2);
});

Deno.test("evidence binding: setup receipts must exist, be setup commands, and have succeeded for a pass", async () => {
  const unit = await receipt("round:unit", 0, "pass");
  const setupFailed = await receipt("round:setup:1", 1);
  const checks = [{ id: "unit", outcome: "pass", receipts: [receiptDigest(unit)] }];
  const failed = checkEvidenceBinding(log([unit, setupFailed], [
    result(checks, [receiptDigest(setupFailed)]),
  ]));
  assert.equal(failed.issue?.code, "outcome_mismatch");
  assert.match(failed.issue!.detail, /setup command round:setup:1 exited 1/);
  const notSetup = checkEvidenceBinding(log([unit], [result(checks, [receiptDigest(unit)])]));
  assert.equal(notSetup.issue?.code, "receipt_mismatch");
  const missing = checkEvidenceBinding(log([unit], [result(checks, ["sha256:" + "9".repeat(64)])]));
  assert.equal(missing.issue?.code, "receipt_missing");
});

Deno.test("evidence binding: a receipt without a sealed outcome supports a pass only with a clean exit 0", async () => {
  const old = await receipt("round:unit", 1);
  const pass = checkEvidenceBinding(log([old], [result([
    { id: "unit", outcome: "pass", receipts: [receiptDigest(old)] },
  ])]));
  assert.equal(pass.issue?.code, "outcome_mismatch");
  const fail = checkEvidenceBinding(log([old], [result([
    { id: "unit", outcome: "fail", receipts: [receiptDigest(old)] },
  ])]));
  assert.equal(fail.issue, null);
});

Deno.test("evidence binding: result events whose checks are not the kernel's shape are malformed", () => {
  for (
    const checks of [null, "pass", [{ id: 1, outcome: "pass" }], [{
      id: "u",
      outcome: "pass",
      receipts: [7],
    }]]
  ) {
    const report = checkEvidenceBinding(log([], [result(checks)]));
    assert.equal(report.issue?.code, "malformed_result", JSON.stringify(checks));
  }
});

Deno.test("evidence binding: a cached baseline binds to the receipts of the task it names in reusedFrom", async () => {
  const r = await receipt("baseline:unit", 1, "fail", "t0");
  const baseline = (reusedFrom?: string) => ({
    v: 1,
    kind: "baseline_result",
    id: "e8",
    seq: 8,
    at: 0,
    taskId: "t1",
    effectId: "t1:contract:0",
    ran: true,
    unusable: [],
    checks: [{ id: "unit", outcome: "fail", receipts: [receiptDigest(r)] }],
    setupReceipts: [],
    ...(reusedFrom !== undefined ? { reusedFrom } : {}),
  });
  // Without reusedFrom, another task's receipt is a mismatch (a cache hit must say whose).
  assert.equal(checkEvidenceBinding(log([r], [baseline()])).issue?.code, "receipt_mismatch");
  assert.equal(checkEvidenceBinding(log([r], [baseline("t0")])).issue, null);
  // Naming a task whose receipt it is not is a mismatch too.
  assert.equal(checkEvidenceBinding(log([r], [baseline("t2")])).issue?.code, "receipt_mismatch");
  // The outcome must still be the one the receipt sealed.
  const pass = {
    ...baseline("t0"),
    checks: [{ id: "unit", outcome: "pass", receipts: [receiptDigest(r)] }],
  };
  assert.equal(checkEvidenceBinding(log([r], [pass])).issue?.code, "outcome_mismatch");
  // A verification result cannot borrow another task's receipts that way.
  const rr = await receipt("round:unit", 1, "fail", "t0");
  const round = {
    ...result([{ id: "unit", outcome: "fail", receipts: [receiptDigest(rr)] }]),
    reusedFrom: "t0",
  };
  assert.equal(checkEvidenceBinding(log([rr], [round])).issue?.code, "receipt_mismatch");
});
