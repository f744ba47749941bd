// The budget arithmetic of `deno task bench:check` (bench/_budget.ts): bound
// parsing, unit conversion, ratio and pass/fail, medians, and that the
// interleaved runner alternates subject and peer. Runs no benchmark.
import assert from "node:assert/strict";
import {
  type BudgetSpec,
  convert,
  formatTable,
  interleaved,
  judge,
  median,
  parseBound,
} from "../../bench/_budget.ts";

const spec = (bound: string): BudgetSpec => ({
  id: "t",
  measures: "subject",
  peer: "peer",
  bound,
  measure: () => "unused",
});

Deno.test("parseBound reads ratio, time and rate bounds, in ASCII and Unicode", () => {
  assert.deepEqual(parseBound("<= 1.15x"), { op: "<=", value: 1.15, unit: "x", ratio: true });
  assert.deepEqual(parseBound("≤ 1 µs"), { op: "<=", value: 1, unit: "us", ratio: false });
  assert.deepEqual(parseBound(">= 150_000 records/s"), {
    op: ">=",
    value: 150_000,
    unit: "records/s",
    ratio: false,
  });
  assert.throws(() => parseBound("fast"), /Cannot parse/);
  assert.throws(() => parseBound("< 3x"), /Cannot parse/);
});

Deno.test("convert converts time units and refuses to mix a rate with a time", () => {
  assert.deepEqual(convert(2_500, "ns", "us"), 2.5);
  assert.deepEqual(convert(0.04, "s", "ms"), 40);
  assert.deepEqual(convert(7, "records/s", "records/s"), 7);
  assert.throws(() => convert(1, "ms", "records/s"), /Cannot compare/);
});

Deno.test("judge: a ratio bound compares subject/peer, an absolute bound the subject", () => {
  const m = { subject: 1_150, peer: 1_000, unit: "ms", samples: 5 };
  assert.deepEqual(judge(spec("<= 1.15x"), m).status, "pass");
  assert.deepEqual(judge(spec("<= 1.14x"), m).status, "fail");
  assert.deepEqual(judge(spec("<= 1.14x"), m).ratio, 1.15);
  // 1,150 ms is 1.15 s: absolute bounds convert the figure to the bound's unit.
  assert.deepEqual(judge(spec("<= 1.2 s"), m).status, "pass");
  assert.deepEqual(judge(spec("<= 1100 ms"), m).status, "fail");
  const rate = { subject: 149_999, peer: 1e6, unit: "records/s", samples: 7 };
  assert.deepEqual(judge(spec(">= 150000 records/s"), rate).status, "fail");
  assert.deepEqual(judge(spec(">= 140000 records/s"), rate).status, "pass");
  // A peer of 0 gives no finite ratio: a ratio bound fails closed.
  assert.deepEqual(judge(spec("<= 2x"), { ...m, peer: 0 }).status, "fail");
});

Deno.test("judge: a measurement that could not run is an error row, never a pass", () => {
  const row = judge(spec("<= 40 ms"), "bwrap unavailable");
  assert.deepEqual([row.status, row.ratio, row.note], ["error", null, "bwrap unavailable"]);
  const table = formatTable([
    row,
    judge(spec("<= 2x"), { subject: 3, peer: 2, unit: "ms", samples: 1 }),
  ]);
  assert.deepEqual(table.includes("ERROR"), true);
  assert.deepEqual(table.includes("1.500x"), true);
});

Deno.test("median takes the (lower) middle", () => {
  assert.deepEqual(median([5, 1, 3]), 3);
  assert.deepEqual(median([4, 1, 3, 2]), 2);
  assert.throws(() => median([]));
});

Deno.test("interleaved alternates the order each round and keeps warm-up untimed", async () => {
  const calls: string[] = [];
  const r = await interleaved(() => {
    calls.push("s");
    return 2; // self-timed: 2 ms
  }, () => {
    calls.push("p");
    return 1;
  }, { warmup: 1, rounds: 3 });
  assert.deepEqual(calls.join(""), "sp" + "sp" + "ps" + "sp");
  assert.deepEqual(r.subject, [2, 2, 2]);
  assert.deepEqual(r.peer, [1, 1, 1]);
});
