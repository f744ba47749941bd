// Event log benchmarks: framing+hashing in memory (node:crypto vs hash-wasm vs
// WebCrypto), durable appends (fsync per record and batched), and full-chain
// verification of a 100,000-record log. Targets: framing < 10 us/record,
// full-chain verification >= 150,000 records/s (< 667 ms per iteration of the
// verify bench; about 445 bytes a record, so SHA-256 of ~44 MB is part of it).
import * as nodeCrypto from "node:crypto";
import { nodeSha256 } from "../adapters/digest/mod.ts";
import {
  createHashWasmSha256,
  EventLog,
  GENESIS_HASH,
  type LogHead,
  verifyLogBytes,
} from "../adapters/log/mod.ts";
import { frameRecord } from "../adapters/log/record.ts";
import { canonicalJson } from "../adapters/canonical_json/mod.ts";
import { type BudgetSpec, interleavedMs, type Measured } from "./_budget.ts";

const wasmSha256 = await createHashWasmSha256();
const encoder = new TextEncoder();

// A realistic ~200-byte kernel event body.
const body = {
  v: 1,
  kind: "verification_result",
  id: "e42",
  seq: 42,
  at: 1_764_460_800_000,
  taskId: "t-7f3a",
  effectId: "t-7f3a:contract:3",
  round: 2,
  checks: [{ id: "unit", outcome: "pass" }, { id: "lint", outcome: "fail" }],
};
const input = { task: "t-7f3a", kind: "kernel.event", body };
const head: LogHead = { seq: 41, hash: "ab".repeat(32) };
const line200 = encoder.encode(`vouch.log.v1\n${canonicalJson(body)}`.padEnd(200, " "));

Deno.bench(
  { group: "sha256 of 200 bytes", name: "node:crypto (Sha256 interface)", baseline: true },
  () => {
    nodeSha256.digest(line200);
  },
);
// What the log's line verifier calls for nodeSha256: one-shot `hash()` to hex.
const oneShot = (nodeCrypto as {
  hash?: (algorithm: string, data: Uint8Array, encoding: "hex") => string;
}).hash;
if (oneShot) {
  Deno.bench({ group: "sha256 of 200 bytes", name: "node:crypto one-shot hash() hex" }, () => {
    oneShot("sha256", line200, "hex");
  });
}
Deno.bench({ group: "sha256 of 200 bytes", name: "hash-wasm (reused hasher)" }, () => {
  wasmSha256.digest(line200);
});
Deno.bench({ group: "sha256 of 200 bytes", name: "WebCrypto (async)" }, async () => {
  await crypto.subtle.digest("SHA-256", line200);
});

Deno.bench(
  { group: "framing (canonical JSON + hash)", name: "node:crypto", baseline: true },
  () => {
    frameRecord(head, input, 1_764_460_800_000, nodeSha256);
  },
);
Deno.bench({ group: "framing (canonical JSON + hash)", name: "hash-wasm" }, () => {
  frameRecord(head, input, 1_764_460_800_000, wasmSha256);
});
Deno.bench({ group: "framing (canonical JSON + hash)", name: "WebCrypto (async)" }, async () => {
  // same canonical bytes, hashed through the async API
  const text = canonicalJson({ ...input, v: 1, seq: 42, ts: 0, prev: head.hash });
  await crypto.subtle.digest("SHA-256", encoder.encode(`vouch.log.v1\n${text}`));
});

// Durable appends: one log per mode, opened once at module scope.
const dir = await Deno.makeTempDir({ prefix: "vouch-bench-" });
const perRecord = await EventLog.open(`${dir}/per-record.jsonl`);
const batched = await EventLog.open(`${dir}/batched.jsonl`, { durability: "batched" });
globalThis.addEventListener("unload", () => {
  perRecord.close().catch(() => {});
  batched.close().catch(() => {});
  try {
    Deno.removeSync(dir, { recursive: true });
  } catch {
    // best effort
  }
});

Deno.bench({ group: "durable append", name: "fdatasync per record", baseline: true }, async () => {
  await perRecord.append(input);
});
Deno.bench({ group: "durable append", name: "batched, flush every 100 (per record)" }, async () => {
  await batched.append(input);
  if (batched.head.seq % 100 === 0) await batched.flush();
});

// Full-chain verification of a 100,000-record log (one iteration = all records).
const RECORDS = 100_000;
let h: LogHead = { seq: 0, hash: GENESIS_HASH };
const lines: string[] = [];
for (let i = 0; i < RECORDS; i++) {
  const f = frameRecord(
    h,
    { ...input, body: { ...body, seq: i + 1, id: `e${i + 1}` } },
    1_764_460_800_000 + i,
  );
  h = f.record;
  lines.push(f.line);
}
const logBytes = encoder.encode(lines.join("\n") + "\n");
lines.length = 0;

Deno.bench({
  group: "verify 100,000 records",
  name: "verifyLogBytes (node:crypto)",
  n: 5,
  warmup: 2,
}, () => {
  const r = verifyLogBytes(logBytes, { keepRecords: false });
  if (r.status !== "ok" || r.head.seq !== RECORDS) throw new Error("verification failed");
});
Deno.bench(
  { group: "verify 100,000 records", name: "verifyLogBytes (hash-wasm)", n: 5, warmup: 2 },
  () => {
    const r = verifyLogBytes(logBytes, { keepRecords: false, sha256: wasmSha256 });
    if (r.status !== "ok") throw new Error("verification failed");
  },
);

// ------------------------------------------------------------------ budgets

/**
 * Full-chain verification of the 100,000-record log against the floor: one
 * SHA-256 (node:crypto) over the same bytes, which every verifier must do.
 */
async function measureVerify(): Promise<Measured> {
  const r = await interleavedMs(
    () => {
      const v = verifyLogBytes(logBytes, { keepRecords: false });
      if (v.status !== "ok" || v.head.seq !== RECORDS) throw new Error("verification failed");
    },
    () => {
      nodeCrypto.createHash("sha256").update(logBytes).digest("hex");
    },
    { warmup: 2, rounds: 7 },
  );
  const rate = (ms: number) => RECORDS / (ms / 1000);
  return {
    subject: rate(r.subject),
    peer: rate(r.peer),
    unit: "records/s",
    samples: r.samples,
    note: `${RECORDS} records, ${(logBytes.length / 1e6).toFixed(1)} MB; medians ${
      r.subject.toFixed(0)
    } ms vs ${r.peer.toFixed(0)} ms; ${r.note}`,
  };
}

/** Budgets checked by `deno task bench:check` (docs/benchmarks.md). */
export const budgets: readonly BudgetSpec[] = [{
  id: "log.verify",
  measures: "verifyLogBytes over a 100,000-record hash-chained log (node:crypto), records/s",
  peer: "one node:crypto SHA-256 over the same bytes (the floor), as records/s",
  bound: ">= 150000 records/s",
  measure: measureVerify,
}];
