import assert from "node:assert/strict";
import { importMacKey, loadOrCreateMacKey } from "../../../adapters/keys/mod.ts";
import {
  EventLog,
  GENESIS_HASH,
  type LogHead,
  type LogRecord,
  readLogFile,
} from "../../../adapters/log/mod.ts";
import { frameRecord } from "../../../adapters/log/record.ts";
import {
  mintReceipt,
  receiptChainHash,
  type ReceiptInput,
  ReceiptRecorder,
  type ToolReceipt,
  verifyLogReceipts,
  verifyReceiptMac,
  verifyReceiptsAgainstLog,
} from "../../../adapters/receipts/mod.ts";

const key = await importMacKey(new Uint8Array(32).fill(9), "memory");
const otherKey = await importMacKey(new Uint8Array(32).fill(8), "memory");
const zero = { digest: "sha256:" + "0".repeat(64), bytes: 0 };

function input(task: string, tool: string, code = 0): ReceiptInput {
  return {
    task,
    tool,
    argv: ["sh", "-c", `exit ${code}`],
    cwd: "/work",
    sandboxProfile: "bwrap",
    envNames: ["PATH", "HOME", "PATH"],
    startedAt: 1000,
    endedAt: 1500,
    exit: { code, signal: null, timedOut: false },
    stdout: zero,
    stderr: { digest: "sha256:" + "1".repeat(64), bytes: 12 },
  };
}

async function withLog(fn: (path: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "vouch-receipts-" });
  try {
    await fn(`${dir}/events.jsonl`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function readRecords(path: string): Promise<LogRecord[]> {
  const r = await readLogFile(path);
  assert.equal(r.status, "ok");
  return [...r.records];
}

/** Writes a log with steps and receipts; returns the receipts. */
async function writeRun(path: string): Promise<ToolReceipt[]> {
  const log = await EventLog.open(path);
  const recorder = ReceiptRecorder.resume(log, key, log.openReport.lastReceipt);
  const receipts: ToolReceipt[] = [];
  for (let i = 0; i < 3; i++) {
    await log.append({ task: "t1", kind: "demo.step", body: { i } });
    receipts.push(await recorder.record(input("t1", `check:c${i}`)));
  }
  await log.append({ task: "t1", kind: "demo.step", body: { done: true } });
  await log.close();
  return receipts;
}

Deno.test("mintReceipt() seals the body; any field change breaks the MAC", async () => {
  const r = await mintReceipt(key, input("t1", "check:unit"), {
    anchor: { seq: 0, hash: GENESIS_HASH },
    prevReceipt: GENESIS_HASH,
  });
  assert.deepEqual(r.envNames, ["HOME", "PATH"]);
  assert.match(r.argvDigest, /^sha256:[0-9a-f]{64}$/);
  assert.equal(JSON.stringify(r).includes("exit 0"), false, "argv stored only as a digest");
  await verifyReceiptMac(r, key);
  const changes: Partial<ToolReceipt>[] = [
    { task: "t2" },
    { tool: "check:other" },
    { exit: { code: 1, signal: null, timedOut: false } },
    { stdout: { digest: zero.digest, bytes: 1 } },
    { anchor: { seq: 1, hash: GENESIS_HASH } },
    { envNames: ["HOME", "PATH", "SECRET"] },
    { endedAt: 1501 },
    { mac: "0".repeat(64) },
  ];
  for (const change of changes) {
    await assert.rejects(verifyReceiptMac({ ...r, ...change }, key), { code: "bad_mac" });
  }
  await assert.rejects(verifyReceiptMac(r, otherKey), { code: "key_mismatch" });
  await assert.rejects(verifyReceiptMac({ ...r, extra: 1 }, key), { code: "schema" });
  await assert.rejects(verifyReceiptMac("nope", key), { code: "schema" });
});

Deno.test("receipts chain and anchor to the log; a clean log verifies", async () => {
  await withLog(async (path) => {
    const receipts = await writeRun(path);
    assert.equal(receipts[0]!.prevReceipt, GENESIS_HASH);
    assert.equal(receipts[1]!.prevReceipt, receiptChainHash(receipts[0]!));
    assert.equal(receipts[0]!.anchor.seq, 1);
    const records = await readRecords(path);
    const report = await verifyLogReceipts(records, key);
    assert.equal(report.issue, null);
    assert.equal(report.verified, 3);
    assert.equal(await verifyReceiptsAgainstLog(receipts, records, key), null);
    // A second writer session continues the same chain.
    const log = await EventLog.open(path);
    const recorder = ReceiptRecorder.resume(log, key, log.openReport.lastReceipt);
    assert.equal(recorder.previous, receiptChainHash(receipts[2]!));
    await recorder.record(input("t1", "check:again"));
    await log.close();
    assert.equal((await verifyLogReceipts(await readRecords(path), key)).verified, 4);
  });
});

Deno.test("a self-consistent replacement chain is caught by the receipts", async () => {
  await withLog(async (path) => {
    await writeRun(path);
    const records = await readRecords(path);
    // The attacker rewrites record 1 and recomputes every hash after it, keeping
    // the receipt bodies (whose MACs they cannot recompute) as they were.
    let head: LogHead = { seq: 0, hash: GENESIS_HASH };
    const forged: LogRecord[] = [];
    const lines: string[] = [];
    for (const r of records) {
      const body = r.seq === 1 ? { i: 0, evil: true } : r.body;
      const f = frameRecord(head, { task: r.task, kind: r.kind, body }, r.ts);
      forged.push(f.record);
      lines.push(f.line);
      head = f.record;
    }
    await Deno.writeTextFile(path, lines.map((l) => l + "\n").join(""));
    const again = await readLogFile(path);
    assert.equal(again.status, "ok", "the hash chain alone cannot tell");
    const report = await verifyLogReceipts(forged, key);
    assert.equal(report.issue?.code, "anchor_mismatch");
    assert.equal(report.issue?.seq, 2);

    // Rewriting the anchors too breaks the MACs.
    head = { seq: 0, hash: GENESIS_HASH };
    const forged2: LogRecord[] = [];
    for (const r of records) {
      let body = r.seq === 1 ? { i: 0, evil: true } : r.body;
      if (r.kind === "tool.receipt") {
        const rc = r.body as unknown as ToolReceipt;
        body = { ...rc, anchor: { seq: head.seq, hash: head.hash } } as never;
      }
      const f = frameRecord(head, { task: r.task, kind: r.kind, body }, r.ts);
      forged2.push(f.record);
      head = f.record;
    }
    assert.equal((await verifyLogReceipts(forged2, key)).issue?.code, "bad_mac");
  });
});

Deno.test("tail truncation of whole lines is caught by the latest receipt's anchor", async () => {
  await withLog(async (path) => {
    const receipts = await writeRun(path);
    const text = await Deno.readTextFile(path);
    const lines = text.split("\n").filter((l) => l !== "");
    // Drop the last 2 lines (the final step and the last receipt): still a valid chain.
    await Deno.writeTextFile(path, lines.slice(0, -2).map((l) => l + "\n").join(""));
    const records = await readRecords(path);
    assert.equal((await verifyLogReceipts(records, key)).issue, null);
    const issue = await verifyReceiptsAgainstLog([receipts.at(-1)!], records, key);
    assert.equal(issue?.code, "anchor_missing");
    // Drop more: the anchor itself is gone.
    await Deno.writeTextFile(path, lines.slice(0, 3).map((l) => l + "\n").join(""));
    const shorter = await readRecords(path);
    const issue2 = await verifyReceiptsAgainstLog([receipts.at(-1)!], shorter, key);
    assert.equal(issue2?.code, "anchor_missing");
    assert.match(issue2!.detail, /ends at seq 3/);
  });
});

Deno.test("a reordered or replaced receipt breaks the receipt chain", async () => {
  await withLog(async (path) => {
    await writeRun(path);
    const records = await readRecords(path);
    // Replace receipt 2 with a freshly minted (valid MAC) receipt that skips the chain.
    const fresh = await mintReceipt(key, input("t1", "check:fake"), {
      anchor: { seq: records[2]!.seq, hash: records[2]!.hash },
      prevReceipt: GENESIS_HASH,
    });
    const tampered = records.map((r) => r.seq === 4 ? { ...r, body: fresh as never } : r);
    const report = await verifyLogReceipts(tampered, key);
    assert.equal(report.issue?.code, "chain_mismatch");
    assert.equal(report.issue?.seq, 4);
  });
});

Deno.test("receipts verify after the minting process has exited (key persisted)", async () => {
  const state = await Deno.makeTempDir({ prefix: "vouch-state-" });
  const repo = await Deno.makeTempDir({ prefix: "vouch-repo-" });
  try {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL("./_mint_child.ts", import.meta.url).pathname, repo],
      env: { XDG_STATE_HOME: state },
      stdout: "piped",
      stderr: "piped",
    });
    const out = await child.output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const receipt = JSON.parse(new TextDecoder().decode(out.stdout));
    const key = await loadOrCreateMacKey({
      repoRoot: repo,
      env: { XDG_STATE_HOME: state },
      create: false,
    });
    const verified = await verifyReceiptMac(receipt, key);
    assert.equal(verified.task, "child");
  } finally {
    await Deno.remove(state, { recursive: true });
    await Deno.remove(repo, { recursive: true });
  }
});
