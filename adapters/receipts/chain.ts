import type { MacKey } from "../keys/mac_key.ts";
import { LOG_KINDS } from "../log/kinds.ts";
import { GENESIS_HASH, type LogHead, type LogRecord } from "../log/record.ts";
import { ReceiptError, type ReceiptErrorCode } from "./errors.ts";
import {
  mintReceipt,
  receiptChainHash,
  type ReceiptInput,
  type ToolReceipt,
  ToolReceiptSchema,
  verifyReceiptMac,
} from "./receipt.ts";

/** The parts of an event log a receipt recorder needs. */
export interface AnchoredLog {
  /** Makes pending records durable and returns the head to anchor to. */
  anchor(): Promise<LogHead>;
  /** Appends a record. */
  append(input: { task?: string | null; kind: string; body: unknown }): Promise<LogRecord>;
}

/**
 * Mints receipts that chain to each other and anchor to the log, and records
 * each one in the log as a `tool.receipt` record.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdtempSync, rmSync } from "node:fs";
 * import { EventLog } from "../log/store.ts";
 * import { importMacKey } from "../keys/mac_key.ts";
 * import { ReceiptRecorder } from "./chain.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-"));
 * const log = await EventLog.open(`${dir}/events.jsonl`);
 * const recorder = ReceiptRecorder.resume(log, await importMacKey(new Uint8Array(32), "m"));
 * const z = { digest: "sha256:" + "0".repeat(64), bytes: 0 };
 * const r = await recorder.record({
 *   task: "t1", tool: "check:unit", argv: ["true"], cwd: dir, sandboxProfile: "none", envNames: [],
 *   startedAt: 1, endedAt: 2, exit: { code: 0, signal: null, timedOut: false }, stdout: z, stderr: z,
 * });
 * if (r.anchor.seq !== 0) throw new Error();
 * await log.close();
 * rmSync(dir, { recursive: true, force: true });
 * ```
 */
export class ReceiptRecorder {
  readonly #log: AnchoredLog;
  readonly #key: MacKey;
  #prev: string;

  /** Where the MAC key lives (never its bytes): sandboxes keep this directory out of reach. */
  get keyPath(): string {
    return this.#key.path;
  }

  private constructor(log: AnchoredLog, key: MacKey, prev: string) {
    this.#log = log;
    this.#key = key;
    this.#prev = prev;
  }

  /**
   * Continues the receipt chain of a log. Pass the last receipt already in the
   * log (an `EventLog`'s `openReport.lastReceipt`), or nothing for a new log.
   */
  static resume(log: AnchoredLog, key: MacKey, lastReceipt: unknown = null): ReceiptRecorder {
    let prev = GENESIS_HASH;
    if (lastReceipt !== null && lastReceipt !== undefined) {
      const parsed = ToolReceiptSchema.safeParse(lastReceipt);
      if (!parsed.success) {
        throw new ReceiptError("schema", "Cannot resume receipt chain: last receipt is malformed");
      }
      prev = receiptChainHash(parsed.data);
    }
    return new ReceiptRecorder(log, key, prev);
  }

  /** Chain hash the next receipt will link to. */
  get previous(): string {
    return this.#prev;
  }

  /** Anchors to the durable log head, mints, records the receipt and returns it. */
  async record(input: ReceiptInput): Promise<ToolReceipt> {
    const anchor = await this.#log.anchor();
    const receipt = await mintReceipt(this.#key, input, { anchor, prevReceipt: this.#prev });
    await this.#log.append({ task: input.task, kind: LOG_KINDS.toolReceipt, body: receipt });
    this.#prev = receiptChainHash(receipt);
    return receipt;
  }
}

/** A receipt problem found in a log. */
export interface ReceiptIssue {
  /** Stable code. */
  readonly code: ReceiptErrorCode;
  /** Seq of the `tool.receipt` record (or the anchor seq for external receipts). */
  readonly seq: number;
  /** Detail. */
  readonly detail: string;
}

/** Result of checking every receipt in a log. */
export interface LogReceiptsReport {
  /** Number of `tool.receipt` records that verified. */
  readonly verified: number;
  /** The first problem, or null. */
  readonly issue: ReceiptIssue | null;
  /** The last verified receipt. */
  readonly last: ToolReceipt | null;
}

function anchorIssue(
  anchor: LogHead,
  bySeq: (seq: number) => LogRecord | undefined,
  head: LogHead,
  at: number,
): ReceiptIssue | null {
  if (anchor.seq === 0) {
    return anchor.hash === GENESIS_HASH
      ? null
      : { code: "anchor_mismatch", seq: at, detail: "anchor at seq 0 is not the genesis hash" };
  }
  if (anchor.seq > head.seq) {
    return {
      code: "anchor_missing",
      seq: at,
      detail: `receipt anchors seq ${anchor.seq} but the log ends at seq ${head.seq}`,
    };
  }
  const record = bySeq(anchor.seq);
  if (!record || record.hash !== anchor.hash) {
    return {
      code: "anchor_mismatch",
      seq: at,
      detail: `receipt anchors seq ${anchor.seq} with hash ${anchor.hash.slice(0, 12)}, log has ${
        record?.hash.slice(0, 12) ?? "nothing"
      }`,
    };
  }
  return null;
}

/**
 * Verifies every `tool.receipt` record of a verified log: MAC under the key,
 * the receipt chain (each `prevReceipt` is the previous receipt's chain hash),
 * and each anchor (the log record at the anchored seq has the anchored hash and
 * comes before the receipt). A self-consistent rewrite of earlier records with
 * recomputed hashes breaks the anchors; rewriting anchors breaks the MACs.
 *
 * @example
 * ```ts
 * import { importMacKey } from "../keys/mac_key.ts";
 * import { verifyLogReceipts } from "./chain.ts";
 * const report = await verifyLogReceipts([], await importMacKey(new Uint8Array(32), "m"));
 * if (report.verified !== 0 || report.issue !== null) throw new Error();
 * ```
 */
export async function verifyLogReceipts(
  records: readonly LogRecord[],
  key: MacKey,
): Promise<LogReceiptsReport> {
  const first = records[0]?.seq ?? 1;
  const bySeq = (seq: number) => records[seq - first];
  let prev = GENESIS_HASH;
  let verified = 0;
  let last: ToolReceipt | null = null;
  for (const record of records) {
    if (record.kind !== LOG_KINDS.toolReceipt) continue;
    let receipt: ToolReceipt;
    try {
      receipt = await verifyReceiptMac(record.body, key);
    } catch (error) {
      if (error instanceof ReceiptError) {
        return {
          verified,
          last,
          issue: { code: error.code, seq: record.seq, detail: error.message },
        };
      }
      throw error;
    }
    if (receipt.prevReceipt !== prev) {
      return {
        verified,
        last,
        issue: {
          code: "chain_mismatch",
          seq: record.seq,
          detail: "prevReceipt is not the chain hash of the previous receipt in the log",
        },
      };
    }
    if (receipt.anchor.seq >= record.seq) {
      return {
        verified,
        last,
        issue: {
          code: "anchor_order",
          seq: record.seq,
          detail: `receipt at seq ${record.seq} anchors a later seq ${receipt.anchor.seq}`,
        },
      };
    }
    const issue = anchorIssue(
      receipt.anchor,
      bySeq,
      { seq: record.seq, hash: record.hash },
      record.seq,
    );
    if (issue) return { verified, last, issue };
    prev = receiptChainHash(receipt);
    verified++;
    last = receipt;
  }
  return { verified, last, issue: null };
}

/**
 * Checks receipts held outside the log (in a `VerifiedPatch`, an attestation or
 * a run directory) against it: each must verify under the key, appear in the log
 * as a `tool.receipt` record, and its anchor must be in the log. This is what
 * detects whole-line truncation at the tail.
 *
 * @example
 * ```ts
 * import { importMacKey } from "../keys/mac_key.ts";
 * import { verifyReceiptsAgainstLog } from "./chain.ts";
 * const issue = await verifyReceiptsAgainstLog([], [], await importMacKey(new Uint8Array(32), "m"));
 * if (issue !== null) throw new Error();
 * ```
 */
export async function verifyReceiptsAgainstLog(
  receipts: readonly unknown[],
  records: readonly LogRecord[],
  key: MacKey,
): Promise<ReceiptIssue | null> {
  const first = records[0]?.seq ?? 1;
  const bySeq = (seq: number) => records[seq - first];
  const last = records.at(-1);
  const head: LogHead = last ? { seq: last.seq, hash: last.hash } : { seq: 0, hash: GENESIS_HASH };
  const macs = new Set<string>();
  for (const r of records) {
    if (r.kind === LOG_KINDS.toolReceipt && typeof r.body === "object" && r.body !== null) {
      const mac = (r.body as { mac?: unknown }).mac;
      if (typeof mac === "string") macs.add(mac);
    }
  }
  for (const raw of receipts) {
    let receipt: ToolReceipt;
    try {
      receipt = await verifyReceiptMac(raw, key);
    } catch (error) {
      if (error instanceof ReceiptError) return { code: error.code, seq: 0, detail: error.message };
      throw error;
    }
    const issue = anchorIssue(receipt.anchor, bySeq, head, receipt.anchor.seq);
    if (issue) return issue;
    if (!macs.has(receipt.mac)) {
      return {
        code: "anchor_missing",
        seq: receipt.anchor.seq,
        detail:
          `receipt for ${receipt.tool} (anchored at seq ${receipt.anchor.seq}) is not in the log`,
      };
    }
  }
  return null;
}
