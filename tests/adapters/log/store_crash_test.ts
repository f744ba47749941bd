import assert from "node:assert/strict";
import { EventLog, type LogHead, readLogFile } from "../../../adapters/log/mod.ts";

const child = new URL("./_writer_child.ts", import.meta.url).pathname;
const KILLS = 200;

// Deterministic pseudo-random delays so a failure can be reproduced.
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** Reads stdout lines of a child, keeping what follows a matched line. */
class LineReader {
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #text = "";
  constructor(stream: ReadableStream<Uint8Array>) {
    this.#reader = stream.getReader();
  }
  /** Resolves with the first line starting with `prefix` (null if the child exits). */
  async waitFor(prefix: string): Promise<string | null> {
    while (true) {
      const nl = this.#text.indexOf("\n");
      if (nl >= 0) {
        const line = this.#text.slice(0, nl);
        this.#text = this.#text.slice(nl + 1);
        if (line.startsWith(prefix)) return line;
        continue;
      }
      const { value, done } = await this.#reader.read();
      if (done) return null;
      this.#text += new TextDecoder().decode(value);
    }
  }
  cancel(): void {
    this.#reader.cancel().catch(() => {});
  }
}

const LANES = 4;

async function lane(dir: string, laneNo: number, kills: number) {
  const random = lcg(0x5eed + laneNo);
  let recoveries = 0;
  let staleLocksBroken = 0;
  let path = "";
  let known: LogHead = { seq: 0, hash: "0".repeat(64) };
  for (let i = 0; i < kills; i++) {
    if (i % 5 === 0) {
      // a fresh file now and then keeps each reopen cheap
      path = `${dir}/events-${laneNo}-${i}.jsonl`;
      known = { seq: 0, hash: "0".repeat(64) };
    }
    const mode = i % 3 === 2 ? "per-record" : i % 3 === 1 ? "split" : "batched";
    const process = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--no-check", child, path, mode],
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const reader = new LineReader(process.stdout);
    const ready = await reader.waitFor("ready ");
    assert.ok(ready !== null, `writer ${laneNo}/${i} did not start`);
    const startSeq = Number(ready.slice("ready ".length));
    assert.ok(startSeq >= known.seq, `writer ${laneNo}/${i} saw fewer records than were durable`);
    if (mode === "batched" && i % 2 === 0) {
      // aim at the multi-megabyte batch write, where a torn tail is possible
      await reader.waitFor("flush");
      await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 3)));
    } else {
      await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 60)));
    }
    process.kill("SIGKILL");
    await process.status;
    reader.cancel();

    // Reopen: must verify, or recover only a torn tail; never "tampered", and
    // every record durable before this writer started is still there.
    const log = await EventLog.open(path, { expectHead: known });
    if (log.openReport.recovered) recoveries++;
    if (log.openReport.brokeStaleLock) staleLocksBroken++;
    const head = log.head;
    await log.close();
    assert.ok(head.seq >= known.seq, `records lost at kill ${laneNo}/${i}`);
    const read = await readLogFile(path, { expectHead: known, keepRecords: false });
    assert.equal(read.status, "ok", `kill ${laneNo}/${i}: ${read.status}`);
    known = read.head;
  }
  return { recoveries, staleLocksBroken };
}

Deno.test({
  name: `kill -9 of a writer at ${KILLS} random points loses at most the torn tail`,
  sanitizeResources: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "vouch-crash-" });
    try {
      const results = await Promise.all(
        Array.from({ length: LANES }, (_, n) => lane(dir, n, KILLS / LANES)),
      );
      const recoveries = results.reduce((a, r) => a + r.recoveries, 0);
      const stale = results.reduce((a, r) => a + r.staleLocksBroken, 0);
      console.log(
        `  ${KILLS} kills: ${recoveries} torn tails recovered, ${stale} stale locks broken`,
      );
      assert.ok(stale > 0, "killed writers leave stale locks that reopening breaks");
      assert.ok(
        recoveries > 0,
        "writers killed mid-record leave torn tails that reopening recovers",
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
