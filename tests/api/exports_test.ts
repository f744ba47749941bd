/**
 * The package's public API is deliberate: each deno.json entry point exports
 * exactly the names in tests/api/exports.json. A difference fails with the
 * names added and removed; if the change is on purpose, run `deno task api`
 * and commit the new snapshot.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  type ApiSnapshot,
  collectApi,
  entryPoints,
  renderSnapshot,
  SNAPSHOT_PATH,
} from "../../tools/api_snapshot.ts";

const committed = JSON.parse(readFileSync(SNAPSHOT_PATH, "utf8")) as ApiSnapshot;
const current = collectApi();

Deno.test("the package exports exactly the entry points the API names", () => {
  assert.deepEqual(Object.keys(entryPoints()).sort(), [
    ".",
    "./backends",
    "./cli",
    "./kernel",
    "./log",
    "./wasm",
  ]);
});

Deno.test("every entry point exports exactly the committed names (deno task api to update)", () => {
  const problems: string[] = [];
  for (const entry of new Set([...Object.keys(committed), ...Object.keys(current)])) {
    const was = new Set(committed[entry] ?? []);
    const now = new Set(current[entry] ?? []);
    const added = [...now].filter((n) => !was.has(n));
    const removed = [...was].filter((n) => !now.has(n));
    if (added.length > 0) problems.push(`${entry} added: ${added.join(", ")}`);
    if (removed.length > 0) problems.push(`${entry} removed: ${removed.join(", ")}`);
  }
  assert.deepEqual(problems, [], "the public API changed; if on purpose: deno task api");
  assert.equal(renderSnapshot(current), readFileSync(SNAPSHOT_PATH, "utf8"));
});

Deno.test("the root is a facade: the embedder's calls, no internals", () => {
  const root = new Set(current["."]!.map((n) => n.replace(/ \(.*\)$/, "")));
  for (
    const name of [
      "runInRepo",
      "verifyPatchInRepo",
      "evaluateBundleIsolated",
      "auditLog",
      "VerifiedPatch",
      "assertVerifiedPatch",
      "VouchError",
      "isVouchError",
      "RunInRepoOptions",
      "RunOutcome",
      "VerifyPatchOptions",
      "VerifyPatchOutcome",
      "AuditReport",
    ]
  ) assert.ok(root.has(name), `root lacks ${name}`);
  for (const internal of ["complete", "failure", "splitNul", "runProcess", "step", "runTask"]) {
    assert.ok(!root.has(internal), `root exports internal ${internal}`);
  }
  // The facade's calls stay few; the types they name in options and results are exported too
  // (so `deno doc --lint` finds no reference to an unexported type), and bounded as well. The
  // bounds are about today's sizes (22 values, 109 names): the root may not grow.
  // docs/architecture.md ("Plan: a smaller root") says how it shrinks to <= 16 values and <= 60
  // names.
  const values = current["."]!.filter((n) => /\((function|class|variable|enum)\)$/.test(n));
  assert.ok(values.length <= 22, `root exports ${values.length} values: a facade stays small`);
  assert.ok(root.size <= 110, `root exports ${root.size} names: a facade stays small`);
});
