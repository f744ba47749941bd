import assert from "node:assert/strict";
import fc from "fast-check";
import { type CandidateRecord, mergeReports } from "../../../adapters/batch/mod.ts";
import {
  batchReportSchema,
  CANDIDATE_REASONS,
  CANDIDATE_STATUSES,
} from "../../../adapters/batch/schema.ts";
import { buildReport } from "../../../adapters/batch/report.ts";
import { inShard } from "../../../adapters/batch/plan.ts";
import { reportJunit, reportMarkdown } from "../../../adapters/batch/render.ts";

// The run-report keys SWE-bench's harness writes (swebench/harness/reporting.py, schema_version 2).
const SWE_BENCH_KEYS = [
  "total_instances",
  "submitted_instances",
  "completed_instances",
  "resolved_instances",
  "unresolved_instances",
  "empty_patch_instances",
  "error_instances",
  "completed_ids",
  "incomplete_ids",
  "empty_patch_ids",
  "submitted_ids",
  "resolved_ids",
  "unresolved_ids",
  "error_ids",
  "schema_version",
];

const record = fc.record({
  n: fc.integer({ min: 0, max: 40 }),
  status: fc.constantFrom(...CANDIDATE_STATUSES),
  reason: fc.constantFrom(...CANDIDATE_REASONS),
}).map(({ n, status, reason }): CandidateRecord => ({
  id: `task-${n}`,
  instance_id: `task-${n}`,
  model_name_or_path: "m",
  key: String(n).padStart(64, "0"),
  patch_digest: "sha256:x",
  base: "b",
  status,
  reason,
  reasons: [],
  detail: 'd <&> "x"',
  tests: [],
  artefacts: { dir: null, log: null, verified_patch: null, attestation: null },
}));

const records = fc.uniqueArray(record, { selector: (r) => r.id, maxLength: 30 });

function input(rs: readonly CandidateRecord[]) {
  const ids = rs.map((r) => r.id).sort();
  return {
    tasks: "sha256:t",
    predictions: "sha256:p",
    task_ids: [...ids, "unpredicted"].sort(),
    candidate_ids: ids,
    unpredicted_task_ids: ["unpredicted"],
  };
}

Deno.test("property: the report has SWE-bench's keys, counts match the id lists, the schema holds", () => {
  fc.assert(fc.property(records, (rs) => {
    const r = buildReport(input(rs), rs, null);
    for (const key of SWE_BENCH_KEYS) assert.ok(key in r, key);
    assert.equal(r.resolved_instances, r.resolved_ids.length);
    assert.equal(r.unresolved_instances, r.unresolved_ids.length);
    assert.equal(r.error_instances, r.error_ids.length);
    assert.equal(r.empty_patch_instances, r.empty_patch_ids.length);
    assert.deepEqual(r.completed_ids, [...r.resolved_ids, ...r.unresolved_ids].sort());
    assert.deepEqual(r.incomplete_ids, ["unpredicted"]);
    // SWE-bench's newer keys: a failure reason per candidate not resolved, infra and ambiguous ids.
    assert.deepEqual(
      Object.keys(r.failure_reasons).sort(),
      rs.filter((c) => c.status !== "resolved").map((c) => c.id).sort(),
    );
    for (const c of rs.filter((c) => c.status !== "resolved")) {
      assert.equal(r.failure_reasons[c.id], `${c.reason}: ${c.detail}`);
    }
    assert.deepEqual(
      r.infra_failure_ids,
      rs.filter((c) => c.reason === "could_not_run").map((c) => c.id).sort(),
    );
    assert.deepEqual(
      r.ambiguous_failure_ids,
      rs.filter((c) =>
        c.reason === "contract_invalid" && c.status !== "resolved" &&
        c.status !== "empty_patch"
      ).map((c) => c.id).sort(),
    );
    batchReportSchema.parse(r);
    assert.equal(reportJunit(r).match(/<testcase /g)?.length ?? 0, rs.length);
    assert.ok(reportMarkdown(r).includes(`| candidates | ${rs.length} |`));
  }));
});

Deno.test("property: shards of any count, merged in any order, equal the unsharded report", () => {
  fc.assert(fc.property(records, fc.integer({ min: 1, max: 5 }), fc.nat(), (rs, count, seed) => {
    const all = buildReport(input(rs), rs, null);
    const sorted = [...rs].sort((a, b) => (a.id < b.id ? -1 : 1));
    const shards = Array.from({ length: count }, (_, i) => {
      const shard = { index: i + 1, count };
      return buildReport(input(rs), inShard(sorted, shard), shard);
    });
    const order = shards.map((_, i) => (i + seed) % count);
    assert.deepEqual(mergeReports(order.map((i) => shards[i]!)), all);
  }));
});
