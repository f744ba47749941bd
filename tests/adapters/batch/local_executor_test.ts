import assert from "node:assert/strict";
import { runSlots } from "../../../adapters/batch/local_executor.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A virtual clock: `wait(ms)` completes at virtual time now + ms, and time only moves when
 * every job in flight is waiting on it (after a macrotask, so `runSlots` has started whatever
 * it would start). The makespan and the event order are thus the same on an idle or a busy
 * machine: nothing here depends on real time.
 */
function virtualClock() {
  let now = 0;
  const pending: { at: number; seq: number; resolve: () => void }[] = [];
  let seq = 0;
  let scheduled = false;
  const advance = () => {
    scheduled = false;
    pending.sort((a, b) => a.at - b.at || a.seq - b.seq);
    const next = pending.shift();
    if (next === undefined) return;
    now = next.at;
    next.resolve();
    schedule();
  };
  // A macrotask after the microtasks the last completion caused: new jobs have started.
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setTimeout(advance, 0);
  };
  return {
    now: () => now,
    wait: (ms: number) =>
      new Promise<void>((resolve) => {
        pending.push({ at: now + ms, seq: seq++, resolve });
        schedule();
      }),
  };
}

/** Items of `tasks` tasks, `per` each; preparing takes 150 ms, `slow` (task:index) 400 ms, others 50 (virtual). */
function scenario(tasks: number, per: number, slow: string | null = null) {
  const clock = virtualClock();
  const items = Array.from(
    { length: tasks * per },
    (_, i) => ({ task: `t${Math.floor(i / per)}`, n: i % per }),
  );
  let inFlight = 0;
  let peak = 0;
  const events: string[] = [];
  const run = async (label: string, ms: number) => {
    peak = Math.max(peak, ++inFlight);
    events.push(`start ${label}`);
    await clock.wait(ms);
    events.push(`end ${label}`);
    inFlight--;
  };
  return {
    items,
    events,
    clock,
    peak: () => peak,
    work: {
      taskKey: (t: string) => t,
      prepare: async (t: string) => {
        await run(`prepare ${t}`, 150);
        return t;
      },
      judge: (item: { task: string; n: number }) =>
        run(`${item.task}:${item.n}`, `${item.task}:${item.n}` === slow ? 400 : 50),
    },
  };
}

Deno.test("batch slots: N jobs stay in flight across task boundaries (no slot waits on a baseline)", async () => {
  const s = scenario(3, 6);
  await runSlots(s.items, 3, s.work);
  assert.equal(s.peak(), 3);
  // Every preparation once, every item once.
  assert.equal(s.events.filter((e) => e.startsWith("start prepare")).length, 3);
  assert.equal(s.events.filter((e) => /^start t\d:\d$/.test(e)).length, 18);
  // 3 x 150 ms preparation + 18 x 50 ms items = 1350 ms of work on 3 slots: 450 ms (virtual)
  // when no slot idles; lanes that wait for each task's preparation take >= 3 x 150 + 6 x 50 =
  // 750 ms.
  assert.ok(s.clock.now() < 700, `took ${s.clock.now()} virtual ms`);
  // At the start every slot prepares a task instead of waiting for the first one.
  assert.deepEqual(s.events.slice(0, 3), [
    "start prepare t0",
    "start prepare t1",
    "start prepare t2",
  ]);
});

Deno.test("batch slots: a slow candidate holds only its own slot", async () => {
  const s = scenario(1, 12, "t0:0");
  await runSlots(s.items, 2, s.work);
  const slowEnd = s.events.indexOf("end t0:0");
  // While the slow one ran (400 virtual ms), the other slot judged the other items (50 each).
  const doneBefore = s.events.slice(0, slowEnd).filter((e) => /^end t0:\d+$/.test(e)).length;
  assert.ok(doneBefore >= 6, `only ${doneBefore} done beside the slow candidate`);
});

Deno.test("batch slots: the first error rejects once nothing is in flight; no new job starts after it", async () => {
  const started: string[] = [];
  let inFlight = 0;
  await assert.rejects(
    runSlots(
      Array.from({ length: 6 }, (_, n) => ({ task: "t", n })),
      2,
      {
        taskKey: (t: string) => t,
        prepare: (t: string) => Promise.resolve(t),
        judge: async (item: { task: string; n: number }) => {
          started.push(String(item.n));
          inFlight++;
          await sleep(item.n === 0 ? 10 : 30);
          inFlight--;
          if (item.n === 0) throw new Error("store full");
        },
      },
    ),
    /store full/,
  );
  assert.equal(inFlight, 0);
  assert.deepEqual(started, ["0", "1"]);
});
