import { GENESIS_HASH, type LogHead, type LogRecord } from "../../../adapters/log/mod.ts";
import { frameRecord } from "../../../adapters/log/record.ts";

/** Builds an in-memory log of `n` records and returns its lines and records. */
export function buildLog(n: number, task = "t1"): { lines: string[]; records: LogRecord[] } {
  let head: LogHead = { seq: 0, hash: GENESIS_HASH };
  const lines: string[] = [];
  const records: LogRecord[] = [];
  for (let i = 0; i < n; i++) {
    const { record, line } = frameRecord(head, {
      task,
      kind: "demo.step",
      body: { i, note: `step ${i}`, nested: { ok: i % 2 === 0, list: [i, "x"] } },
    }, 1_700_000_000_000 + i);
    head = record;
    lines.push(line);
    records.push(record);
  }
  return { lines, records };
}

/** Joins lines into file bytes with a trailing newline. */
export function toBytes(lines: string[]): Uint8Array {
  return new TextEncoder().encode(lines.map((l) => l + "\n").join(""));
}
