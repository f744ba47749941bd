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
    "./batch",
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

Deno.test("every entry point is an explicit list: no `export *` re-exports internals", () => {
  // A barrel (`export * from "./x.ts"`) publishes whatever x.ts exports today and tomorrow,
  // helpers included; each entry point names what it exports instead.
  const offenders: string[] = [];
  for (const [entry, file] of Object.entries(entryPoints())) {
    const text = readFileSync(new URL(`../../${file}`, import.meta.url), "utf8");
    for (const line of text.split("\n")) {
      if (/^\s*export\s*\*/.test(line)) offenders.push(`${entry} (${file}): ${line.trim()}`);
    }
  }
  assert.deepEqual(offenders, []);
});

Deno.test("the subpaths export what an embedder needs, not vouch's helpers", () => {
  const names = (entry: string) => new Set(current[entry]!.map((n) => n.replace(/ \(.*\)$/, "")));
  const kernel = names("./kernel");
  for (const name of ["step", "initialKernelState", "replayEvents", "parseGitDiff", "VouchError"]) {
    assert.ok(kernel.has(name), `./kernel lacks ${name}`);
  }
  for (const helper of ["latin1OfBytes", "GLOB_PROGRAM", "toHex", "asciiBytes", "parsePointer"]) {
    assert.ok(!kernel.has(helper), `./kernel exports the helper ${helper}`);
  }
  const backends = names("./backends");
  for (
    const name of ["codexBackend", "claudeBackend", "commandBackend", "fnBackend", "acpBackend"]
  ) {
    assert.ok(backends.has(name), `./backends lacks ${name}`);
  }
  for (const helper of ["guardRun", "failure", "safeEmit", "LineSplitter", "maskSecrets"]) {
    assert.ok(!backends.has(helper), `./backends exports the helper ${helper}`);
  }
  const log = names("./log");
  for (const name of ["EventLog", "readLogFile", "verifyLogBytes", "replayKernelRecords"]) {
    assert.ok(log.has(name), `./log lacks ${name}`);
  }
  for (const helper of ["acquireWriterLock", "bootId", "frameRecord", "canonicalBody"]) {
    assert.ok(!log.has(helper), `./log exports the helper ${helper}`);
  }
  // Bounds at about today's sizes, so a subpath grows only on purpose.
  assert.ok(kernel.size <= 280, `./kernel exports ${kernel.size} names`);
  // 66, on purpose: the ACP backend (`acpBackend`, its config and the 3 types that names), so an
  // embedder can hand `runInRepo` any ACP agent (through `confinedAgent`), as `vouch run` can.
  assert.ok(backends.size <= 66, `./backends exports ${backends.size} names`);
  assert.ok(log.size <= 32, `./log exports ${log.size} names`);
  const batch = names("./batch");
  for (
    const name of ["runBatch", "mergeReports", "sealReport", "checkReportSeal", "loadFleetKey"]
  ) {
    assert.ok(batch.has(name), `./batch lacks ${name}`);
  }
  assert.ok(batch.size <= 28, `./batch exports ${batch.size} names`);
});

Deno.test("the root is a facade: the embedder's calls, no internals", () => {
  const root = new Set(current["."]!.map((n) => n.replace(/ \(.*\)$/, "")));
  for (
    const name of [
      "runInRepo",
      "verifyPatchInRepo",
      "evaluateBundle",
      "inspectLog",
      "VerifiedPatch",
      "assertVerifiedPatch",
      "VouchError",
      "isVouchError",
      "RunInRepoOptions",
      "RunOutcome",
      "VerifyPatchOptions",
      "VerifyPatchOutcome",
      "InspectReport",
    ]
  ) assert.ok(root.has(name), `root lacks ${name}`);
  for (const internal of ["complete", "failure", "splitNul", "runProcess", "step", "runTask"]) {
    assert.ok(!root.has(internal), `root exports internal ${internal}`);
  }
  // Batch grading is its own entry point (./batch), not the root's.
  for (const name of ["runBatch", "mergeReports", "sealReport", "loadFleetKey", "BatchOptions"]) {
    assert.ok(!root.has(name), `root exports ${name}: it belongs to ./batch`);
  }
  // The facade's calls stay few; the types they name in options and results are exported too
  // (so `deno doc --lint` finds no reference to an unexported type), and bounded as well. The
  // bounds are today's sizes (16 values, 72 names): the root may not grow. docs/architecture.md
  // ("The root") says what left it (the options meant for vouch's own CLI and batch). The 72nd,
  // on purpose: `RepoTaskOptions`, the 14 options `RunInRepoOptions` and `VerifyPatchOptions`
  // both restated and now extend. The 17th value and 74th name, on purpose: `confinedAgent` and
  // its options, since `runInRepo` refuses a program-starting agent that is not confined
  // (`agent_unconfined`), and an embedder needs the way to confine it.
  const values = current["."]!.filter((n) => /\((function|class|variable|enum)\)$/.test(n));
  assert.ok(values.length <= 17, `root exports ${values.length} values: a facade stays small`);
  assert.ok(root.size <= 74, `root exports ${root.size} names: a facade stays small`);
  assert.ok(root.has("confinedAgent"), "root lacks confinedAgent (the embedder's agent sandbox)");
});

Deno.test("the npm package has the same entry points as deno.json (the CLI is its bin)", async () => {
  const { NPM_ENTRIES } = await import("../../tools/build_npm.ts");
  const jsr = Object.entries(entryPoints()).filter(([key]) => key !== "./cli");
  assert.deepEqual(
    NPM_ENTRIES.map((e) => [e.key, `./${e.source}`]).sort(),
    jsr.sort(),
  );
});
