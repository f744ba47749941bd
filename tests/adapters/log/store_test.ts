import assert from "node:assert/strict";
import { EventLog, EventLogError, readLogFile } from "../../../adapters/log/mod.ts";

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "vouch-log-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const child = new URL("./_writer_child.ts", import.meta.url).pathname;

Deno.test("EventLog appends durable records and reopens where it left off", async () => {
  await withDir(async (dir) => {
    const path = `${dir}/events.jsonl`;
    let t = 1000;
    const log = await EventLog.open(path, { now: () => t++ });
    await log.append({ task: "t1", kind: "demo", body: { a: 1 } });
    await log.append({ kind: "demo", body: [1, 2] });
    assert.equal(log.head.seq, 2);
    assert.deepEqual(log.durableHead, log.head);
    await log.close();
    await log.close(); // idempotent
    await assert.rejects(log.append({ kind: "demo", body: 1 }), { code: "closed" });
    assert.equal(await Deno.stat(`${path}.lock`).catch(() => null), null, "lock released");
    const again = await EventLog.open(path);
    assert.equal(again.openReport.records, 2);
    const r = await again.append({ kind: "demo", body: 3 });
    assert.equal(r.seq, 3);
    await again.close();
    const read = await readLogFile(path);
    assert.equal(read.status, "ok");
    assert.deepEqual(read.records.map((x) => x.ts).slice(0, 2), [1000, 1001]);
  });
});

Deno.test("EventLog never rewrites earlier bytes", async () => {
  await withDir(async (dir) => {
    const path = `${dir}/events.jsonl`;
    const log = await EventLog.open(path);
    for (let i = 0; i < 5; i++) await log.append({ kind: "demo", body: i });
    await log.close();
    const before = await Deno.readFile(path);
    const log2 = await EventLog.open(path, { durability: "batched" });
    for (let i = 0; i < 5; i++) await log2.append({ kind: "demo", body: i });
    await log2.close();
    const after = await Deno.readFile(path);
    assert.deepEqual(after.subarray(0, before.length), before);
  });
});

Deno.test("batched mode writes nothing until flush; flush makes records durable", async () => {
  await withDir(async (dir) => {
    const path = `${dir}/events.jsonl`;
    const log = await EventLog.open(path, { durability: "batched" });
    await log.append({ kind: "demo", body: 1 });
    await log.append({ kind: "demo", body: 2 });
    assert.equal(log.head.seq, 2);
    assert.equal(log.durableHead.seq, 0);
    assert.equal((await Deno.readFile(path)).length, 0);
    const head = await log.anchor();
    assert.equal(head.seq, 2);
    assert.equal((await readLogFile(path)).head.seq, 2);
    await log.close();
  });
});

Deno.test("concurrent appends in one process are serialised", async () => {
  await withDir(async (dir) => {
    const path = `${dir}/events.jsonl`;
    const log = await EventLog.open(path);
    const seqs = await Promise.all(
      Array.from(
        { length: 20 },
        (_, i) => log.append({ kind: "demo", body: i }).then((r) => r.seq),
      ),
    );
    assert.deepEqual(seqs, Array.from({ length: 20 }, (_, i) => i + 1));
    await log.close();
    assert.equal((await readLogFile(path)).status, "ok");
  });
});

Deno.test("a torn tail is copied aside, truncated and recorded", async () => {
  await withDir(async (dir) => {
    const path = `${dir}/events.jsonl`;
    const log = await EventLog.open(path);
    for (let i = 0; i < 3; i++) await log.append({ kind: "demo", body: i });
    await log.close();
    const full = await Deno.readFile(path);
    const torn = full.subarray(0, full.length - 10);
    await Deno.writeFile(path, torn);
    await assert.rejects(EventLog.open(path, { recover: false }), { code: "torn" });
    const reopened = await EventLog.open(path);
    assert.equal(reopened.openReport.records, 2);
    assert.ok(reopened.openReport.recovered);
    assert.equal(reopened.head.seq, 3);
    await reopened.close();
    const read = await readLogFile(path);
    assert.equal(read.status, "ok");
    const last = read.records.at(-1)!;
    assert.equal(last.kind, "log.recovered");
    const droppedBytes = torn.length - torn.lastIndexOf(0x0a) - 1;
    assert.deepEqual(last.body, { droppedBytes, tornFile: "events.jsonl.torn-1", afterSeq: 2 });
    const aside = await Deno.readFile(`${path}.torn-1`);
    assert.deepEqual(aside, torn.subarray(torn.lastIndexOf(0x0a) + 1));
  });
});

Deno.test("a tampered log is refused with the first bad line, and nothing is appended", async () => {
  await withDir(async (dir) => {
    const path = `${dir}/events.jsonl`;
    const log = await EventLog.open(path);
    for (let i = 0; i < 4; i++) await log.append({ kind: "demo", body: { i } });
    await log.close();
    const text = await Deno.readTextFile(path);
    await Deno.writeTextFile(path, text.replace('{"i":2}', '{"i":7}'));
    const before = await Deno.readFile(path);
    const error = await EventLog.open(path).then(() => null, (e) => e);
    assert.ok(error instanceof EventLogError);
    assert.equal(error.code, "tampered");
    assert.deepEqual(
      { reason: error.issue?.reason, seq: error.issue?.seq, line: error.issue?.line },
      { reason: "bad_hash", seq: 3, line: 3 },
    );
    assert.deepEqual(await Deno.readFile(path), before);
    assert.equal(await Deno.stat(`${path}.lock`).catch(() => null), null, "lock released");
    await assert.rejects(
      EventLog.open(path, { expectHead: { seq: 9, hash: "0".repeat(64) } }),
      { code: "tampered" },
    );
  });
});

Deno.test("a second writer process is refused by the lock", async () => {
  await withDir(async (dir) => {
    const path = `${dir}/events.jsonl`;
    const log = await EventLog.open(path);
    await log.append({ kind: "demo", body: 1 });
    // Another process trying to open it for writing fails with "locked".
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", child, path, "per-record", "0"],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.notEqual(out.code, 0);
    assert.match(new TextDecoder().decode(out.stderr), /EventLogError.*held by pid/s);
    // And in-process too.
    await assert.rejects(EventLog.open(path), { code: "locked" });
    await log.close();
    // Once released, the other process can write.
    const ok = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", child, path, "per-record", "0"],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(ok.code, 0, new TextDecoder().decode(ok.stderr));
    assert.equal(new TextDecoder().decode(ok.stdout).trim(), "ready 1");
  });
});

Deno.test("a live writer's lock holds against concurrent writer processes", async () => {
  await withDir(async (dir) => {
    const path = `${dir}/events.jsonl`;
    const runs = await Promise.all(
      Array.from({ length: 3 }, () =>
        new Deno.Command(Deno.execPath(), {
          args: ["run", "-A", child, path, "per-record", "3000"],
          stdout: "piped",
          stderr: "piped",
        }).output()),
    );
    const winners = runs.filter((r) => r.code === 0);
    assert.equal(winners.length, 1, "exactly one writer got the lock");
    for (const r of runs.filter((r) => r.code !== 0)) {
      assert.match(new TextDecoder().decode(r.stderr), /held by pid/);
    }
  });
});
