/**
 * Log forgery, tried as an attacker with vouch's own code would: a failing
 * verification_result flipped to a pass, every kernel.actions record recomputed
 * with vouch's own kernel, the chain re-hashed. The chain, the receipts' MACs
 * and anchors, and the replay all still check out; only the binding of the
 * result events to the receipts they name catches it. Then the same log with
 * its receipts removed (and no key at all), and the intact log without a key.
 */
import assert from "node:assert/strict";
import { inspectLog, lifecycleReplayKernel } from "../../adapters/audit/mod.ts";
import {
  GENESIS_HASH,
  type JsonValue,
  LOG_KINDS,
  type LogHead,
  readLogFile,
  replayKernelRecords,
} from "../../adapters/log/mod.ts";
import { frameRecord } from "../../adapters/log/record.ts";
import { verifyLogReceipts } from "../../adapters/receipts/mod.ts";
import type { KernelEvent } from "../../kernel/lifecycle/mod.ts";
import { runCli } from "../../cli/main.ts";
import { bufferIo, buildLogFixture } from "../cli/_log_fixture.ts";

type Body = Record<string, unknown>;

/**
 * Rewrites a log like a forger holding vouch's code: `change` edits (or drops,
 * with null) records; every kernel.actions body is then recomputed by stepping
 * vouch's kernel over the (edited) events, and the chain is re-hashed.
 */
async function forge(
  path: string,
  change: (kind: string, body: Body, seq: number) => Body | null,
): Promise<void> {
  const read = await readLogFile(path);
  let head: LogHead = { seq: 0, hash: GENESIS_HASH };
  let text = "";
  let state: unknown = null;
  let lastEvent = 0;
  let actions: unknown = [];
  for (const r of read.records) {
    const body = change(r.kind, r.body as Body, r.seq);
    if (body === null) continue;
    let out: unknown = body;
    if (r.kind === LOG_KINDS.kernelInit) {
      state = lifecycleReplayKernel.initial((body as { config: JsonValue }).config ?? null);
    } else if (r.kind === LOG_KINDS.kernelEvent) {
      lastEvent = head.seq + 1;
      // deno-lint-ignore no-explicit-any
      const stepped = lifecycleReplayKernel.step(state as any, body as unknown as KernelEvent);
      state = stepped.state;
      actions = stepped.actions;
    } else if (r.kind === LOG_KINDS.kernelActions) {
      out = {
        forSeq: lastEvent,
        actions: JSON.parse(JSON.stringify(actions)),
      };
    }
    const f = frameRecord(head, { task: r.task, kind: r.kind, body: out }, r.ts);
    head = f.record;
    text += f.line + "\n";
  }
  await Deno.writeTextFile(path, text);
}

/** The seq of the last verification_result whose `unit` check failed. */
async function lastFailingResult(path: string): Promise<number> {
  const read = await readLogFile(path);
  const hits = read.records.filter((r) => {
    const b = r.body as Body;
    return r.kind === LOG_KINDS.kernelEvent && b.kind === "verification_result" &&
      (b.checks as { id: string; outcome: string }[]).some((c) =>
        c.id === "unit" && c.outcome === "fail"
      );
  });
  assert.ok(hits.length > 0);
  return hits.at(-1)!.seq;
}

const flipToPass = (target: number) => (kind: string, body: Body, seq: number): Body =>
  kind === LOG_KINDS.kernelEvent && seq === target
    ? {
      ...body,
      checks: (body.checks as Body[]).map((c) => ({ ...c, outcome: "pass" })),
    }
    : body;

async function inspect(args: string[]) {
  const b = bufferIo();
  const code = await runCli(["inspect", ...args], b.io);
  return { code, out: b.out };
}

Deno.test("redteam log: a failing result flipped to pass, actions recomputed, chain re-hashed", async () => {
  // Every round fails; the last verification_result comes after every receipt.
  const fx = await buildLogFixture({ passRound: 99 });
  try {
    const target = await lastFailingResult(fx.logPath);
    await forge(fx.logPath, flipToPass(target));
    const read = await readLogFile(fx.logPath);
    // Everything but the binding still checks out: that is the attack.
    assert.equal(read.status, "ok");
    assert.equal((await verifyLogReceipts(read.records, fx.key)).issue, null);
    assert.equal(replayKernelRecords(read.records, lifecycleReplayKernel).status, "deterministic");

    const report = await inspectLog(fx.logPath, { key: fx.key });
    assert.equal(report.verdict, "tampered");
    assert.equal(report.evidence.issue?.code, "outcome_mismatch");
    assert.equal(report.evidence.issue?.seq, target);
    assert.equal(report.evidence.issue?.line, target);
    assert.match(report.evidence.issue!.detail, /claims pass, its receipt shows fail \(exit 1\)/);

    const r = await inspect([fx.logPath, "--key-file", fx.key.path]);
    assert.equal(r.code, 1);
    assert.match(r.out, new RegExp(`evidence\\s+TAMPERED\\s+outcome_mismatch at line ${target} `));
    assert.match(r.out, /audit\s+TAMPERED/);
    assert.doesNotMatch(r.out, /VERIFIED/);
  } finally {
    await fx.cleanup();
  }
});

Deno.test("redteam log: the forged log with its receipts removed fails with no key at all", async () => {
  const fx = await buildLogFixture({ passRound: 99 });
  try {
    const target = await lastFailingResult(fx.logPath);
    await forge(
      fx.logPath,
      (kind, body, seq) =>
        kind === LOG_KINDS.toolReceipt ? null : flipToPass(target)(kind, body, seq),
    );
    const noKey = await inspectLog(fx.logPath, { key: null });
    assert.equal(noKey.receipts.present, 0);
    assert.equal(noKey.verdict, "tampered");
    assert.equal(noKey.evidence.issue?.code, "receipt_missing");
    const r = await inspect([fx.logPath]);
    assert.equal(r.code, 1);
    assert.match(r.out, /evidence\s+TAMPERED\s+receipt_missing at line \d+/);
    assert.doesNotMatch(r.out, /VERIFIED/);

    // Stripping the receipt lists from the events too leaves passes that rest on nothing.
    await forge(fx.logPath, (kind, body) => {
      if (kind !== LOG_KINDS.kernelEvent || body.checks === undefined) return body;
      const checks = (body.checks as Body[]).map(({ receipts: _r, ...c }) => c);
      return { ...body, checks, setupReceipts: [] };
    });
    const stripped = await inspectLog(fx.logPath, { key: null });
    assert.equal(stripped.verdict, "tampered");
    assert.equal(stripped.evidence.issue?.code, "outcome_without_receipt");
  } finally {
    await fx.cleanup();
  }
});

Deno.test("redteam log: a receipt cited by a check of another phase or id is a mismatch", async () => {
  const fx = await buildLogFixture({ passRound: 99 });
  try {
    // Cite the lint receipt (a pass) for the failing unit check, and flip unit to pass.
    const target = await lastFailingResult(fx.logPath);
    await forge(fx.logPath, (kind, body, seq) => {
      if (kind !== LOG_KINDS.kernelEvent || seq !== target) return body;
      const checks = body.checks as { id: string; outcome: string; receipts: string[] }[];
      const lint = checks.find((c) => c.id === "lint")!;
      return {
        ...body,
        checks: checks.map((c) =>
          c.id === "unit" ? { ...c, outcome: "pass", receipts: lint.receipts } : c
        ),
      };
    });
    const report = await inspectLog(fx.logPath, { key: fx.key });
    assert.equal(report.verdict, "tampered");
    assert.equal(report.evidence.issue?.code, "receipt_mismatch");
    assert.match(report.evidence.issue!.detail, /check "unit" names the receipt of round:lint/);
  } finally {
    await fx.cleanup();
  }
});

Deno.test("redteam log: without the key an intact log with receipts is never VERIFIED", async () => {
  const fx = await buildLogFixture();
  try {
    const report = await inspectLog(fx.logPath, { key: null });
    assert.equal(report.verdict, "unauthenticated");
    assert.equal(report.evidence.issue, null);
    const saved = Deno.env.get("XDG_STATE_HOME");
    Deno.env.set("XDG_STATE_HOME", `${fx.root}/no-keys-here`);
    try {
      const r = await inspect([fx.logPath]);
      assert.equal(r.code, 1);
      assert.match(r.out, /audit\s+UNAUTHENTICATED\s+chain intact, evidence unauthenticated/);
      assert.doesNotMatch(r.out, /VERIFIED/);
    } finally {
      if (saved === undefined) Deno.env.delete("XDG_STATE_HOME");
      else Deno.env.set("XDG_STATE_HOME", saved);
    }
  } finally {
    await fx.cleanup();
  }
});
