import assert from "node:assert/strict";
import { runSlots } from "../../../adapters/batch/local_executor.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Items of `tasks` tasks, `per` each; preparing takes 150 ms, `slow` (task:index) 400 ms, others 50. */
function scenario(tasks: number, per: number, slow: string | null = null) {
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
    await sleep(ms);
    events.push(`end ${label}`);
    inFlight--;
  };
  return {
    items,
    events,
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
  const started = performance.now();
  await runSlots(s.items, 3, s.work);
  const ms = performance.now() - started;
  assert.equal(s.peak(), 3);
  // Every preparation once, every item once.
  assert.equal(s.events.filter((e) => e.startsWith("start prepare")).length, 3);
  assert.equal(s.events.filter((e) => /^start t\d:\d$/.test(e)).length, 18);
  // 3 x 150 ms preparation + 18 x 50 ms items = 1350 ms of work on 3 slots: ~450 ms when no slot
  // idles; lanes that wait for each task's preparation take >= 3 x 150 + 6 x 50 = 750 ms.
  assert.ok(ms < 700, `took ${Math.round(ms)} ms`);
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
  // While the slow one ran (400 ms), the other slot judged the other items (11 x 50 ms).
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
