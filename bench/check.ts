/**
 * `deno task bench:check [--json PATH] [--only SUBSTRING]`: imports each
 * budgeted bench file (its `Deno.bench` registrations are no-ops under
 * `deno run`), runs every exported budget's interleaved measurement once,
 * prints one table (budget, bound, measured, peer, ratio, result) and exits 1
 * when any budget is missed or could not be measured. See docs/benchmarks.md.
 *
 * @module
 */
import { type BudgetRow, type BudgetSpec, formatTable, judge } from "./_budget.ts";

/** The bench files that declare budgets, in run order (cheap first). */
const FILES = [
  "./kernel_step_bench.ts",
  "./cli_start_bench.ts",
  "./event_log_bench.ts",
  "./glob_bench.ts",
  "./junit_bench.ts",
  "./diff_parse_bench.ts",
  "./sandbox_startup_bench.ts",
  "./file_service_bench.ts",
  "./egress_bench.ts",
  "./verify_overhead_bench.ts",
  "./oracle_bench.ts",
  "./agent_overhead_bench.ts",
  "./deps_bench.ts",
];

function arg(name: string): string | undefined {
  const i = Deno.args.indexOf(name);
  return i === -1 ? undefined : Deno.args[i + 1];
}

const json = arg("--json");
const only = arg("--only");
const rows: BudgetRow[] = [];
for (const file of FILES) {
  if (only !== undefined && !file.includes(only)) continue;
  let budgets: readonly BudgetSpec[];
  try {
    budgets = ((await import(file)) as { budgets: readonly BudgetSpec[] }).budgets;
  } catch (error) {
    rows.push(judge({
      id: file,
      measures: "set-up of the bench file",
      peer: "-",
      bound: "<= 1x",
      measure: () => "",
    }, `set-up failed: ${(error as Error).message.split("\n")[0]}`));
    continue;
  }
  for (const spec of budgets) {
    console.error(`bench:check ${spec.id} ...`);
    let row: BudgetRow;
    try {
      row = judge(spec, await spec.measure());
    } catch (error) {
      row = judge(spec, `threw: ${(error as Error).message.split("\n")[0]}`);
    }
    console.error(
      `  ${row.status} ${row.subject ?? "-"} vs ${row.peerValue ?? "-"} ${row.unit}` +
        (row.ratio === null ? "" : ` (${row.ratio.toFixed(3)}x)`),
    );
    rows.push(row);
  }
}
console.log(formatTable(rows));
const failed = rows.filter((r) => r.status !== "pass");
console.log(
  failed.length === 0
    ? `\nbench:check: all ${rows.length} budgets held`
    : `\nbench:check: ${failed.length} of ${rows.length} budgets missed: ${
      failed.map((r) => r.id).join(", ")
    }`,
);
if (json !== undefined) {
  await Deno.writeTextFile(
    json,
    JSON.stringify({ at: new Date().toISOString(), rows }, null, 2) + "\n",
  );
}
// Some bench files keep handles (logs, helpers) open; their unload listeners clean up.
Deno.exit(failed.length === 0 ? 0 : 1);
