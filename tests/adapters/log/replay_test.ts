import assert from "node:assert/strict";
import { lifecycleReplayKernel } from "../../../adapters/audit/mod.ts";
import {
  EventLog,
  GENESIS_HASH,
  type LogHead,
  type LogRecord,
  readLogFile,
  recordKernelInit,
  replayKernelRecords,
} from "../../../adapters/log/mod.ts";
import { frameRecord } from "../../../adapters/log/record.ts";
import { defaultPolicy, KERNEL_LIFECYCLE_VERSION } from "../../../kernel/lifecycle/mod.ts";
import { driveKernel } from "../audit/_kernel_driver.ts";

function memoryLog() {
  const records: LogRecord[] = [];
  let head: LogHead = { seq: 0, hash: GENESIS_HASH };
  return {
    records,
    append(input: { task?: string | null; kind: string; body: unknown }) {
      const { record } = frameRecord(head, input, records.length);
      head = record;
      records.push(record);
      return Promise.resolve(record);
    },
  };
}

Deno.test("replay of real kernel logs is deterministic, across several runs in one log", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vouch-replay-" });
  try {
    const path = `${dir}/events.jsonl`;
    for (const [task, passRound] of [["t1", 0], ["t2", 2], ["t3", 9]] as const) {
      // each "process" opens the log, records kernel.init and drives one task
      const log = await EventLog.open(path);
      await driveKernel(log, { task, passRound }, log.head.seq + 1);
      await log.close();
    }
    const read = await readLogFile(path);
    assert.equal(read.status, "ok");
    const result = replayKernelRecords(read.records, lifecycleReplayKernel);
    assert.equal(result.status, "deterministic");
    if (result.status === "deterministic") {
      assert.ok(result.steps > 30, `only ${result.steps} steps`);
      assert.deepEqual(result.interrupted, []);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("replay reports divergence kinds with the first differing seq", async () => {
  const mem = memoryLog();
  await driveKernel(mem, { task: "t1", passRound: 1 });
  const records = mem.records;
  const ok = replayKernelRecords(records, lifecycleReplayKernel);
  assert.equal(ok.status, "deterministic");

  // a recorded action changed
  const idx = records.findIndex((r) =>
    r.kind === "kernel.actions" && (r.body as { actions: unknown[] }).actions.length > 0
  );
  const changed = records.map((r, i) =>
    i === idx ? { ...r, body: { ...(r.body as object), actions: [] } } : r
  ) as LogRecord[];
  const d1 = replayKernelRecords(changed, lifecycleReplayKernel);
  assert.equal(d1.status, "divergent");
  if (d1.status === "divergent") {
    assert.equal(d1.reason, "actions_differ");
    assert.equal(d1.seq, (records[idx]!.body as { forSeq: number }).forSeq);
  }

  // actions record removed in the middle: the next event arrives unanswered
  const removed = records.filter((_, i) => i !== idx);
  const d2 = replayKernelRecords(removed, lifecycleReplayKernel);
  assert.equal(d2.status === "divergent" && d2.reason, "missing_actions");

  // an event removed: its actions record answers nothing
  const noEvent = records.filter((_, i) => i !== idx - 1);
  const d3 = replayKernelRecords(noEvent, lifecycleReplayKernel);
  assert.equal(d3.status === "divergent" && d3.reason, "unexpected_actions");

  // the writer died right after an event: interrupted, not divergent
  const cut = records.slice(0, -1);
  const d4 = replayKernelRecords(cut, lifecycleReplayKernel);
  assert.equal(d4.status, "deterministic");
  if (d4.status === "deterministic") assert.deepEqual(d4.interrupted, [records.at(-2)!.seq]);

  // a kernel that throws on a malformed event
  const throwing = {
    initial: () => 0,
    step: () => {
      throw new Error("boom");
    },
  };
  const d5 = replayKernelRecords(records, throwing);
  assert.equal(d5.status === "divergent" && d5.reason, "step_threw");
});

Deno.test("replay refuses a log written by another kernel version instead of calling it divergent", async () => {
  const policy = JSON.parse(JSON.stringify(defaultPolicy()));
  const older = memoryLog();
  await recordKernelInit(older, policy, "vouch.lifecycle/1");
  await driveKernel(older, { task: "t1", passRound: 1 }, older.records.length + 1);
  const result = replayKernelRecords(older.records, lifecycleReplayKernel);
  assert.equal(result.status, "other_kernel");
  if (result.status === "other_kernel") {
    assert.equal(result.seq, 1);
    assert.equal(result.recorded, "vouch.lifecycle/1");
    assert.equal(result.running, KERNEL_LIFECYCLE_VERSION);
  }

  const current = memoryLog();
  await recordKernelInit(current, policy, KERNEL_LIFECYCLE_VERSION);
  await driveKernel(current, { task: "t1", passRound: 1 }, current.records.length + 1);
  assert.equal(replayKernelRecords(current.records, lifecycleReplayKernel).status, "deterministic");
});
