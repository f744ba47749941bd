import assert from "node:assert/strict";
import fc from "fast-check";
import { parseFailingTests, TEST_FORMATS } from "../../../adapters/test_failures/mod.ts";
import type { TestFormat } from "../../../kernel/contract/types.ts";

const dir = new URL("../../fixtures/test_logs/", import.meta.url);
const read = (name: string) => Deno.readTextFileSync(new URL(name, dir));

// Every fixture was produced by a real run on this machine (see tests/fixtures/test_logs/README.md).
const CASES: [TestFormat, string, string[], number | null][] = [
  ["pytest", "pytest_fail.log", [
    "test_sample.py::test_fails",
    "test_sample.py::TestGroup::test_inner_fail",
    "test_sample.py::test_param[2]",
    "test_sample.py::test_error",
  ], 8],
  ["pytest", "pytest_pass.log", [], 2],
  ["pytest", "pytest_none.log", [], 0],
  ["deno", "deno_fail.log", ["fails with message", "group ... inner fails", "also fails"], 4],
  [
    "deno",
    "deno_fail_nocolor.log",
    ["fails with message", "group ... inner fails", "also fails"],
    4,
  ],
  ["deno", "deno_pass.log", [], 1],
  ["node", "node_fail.log", ["fails with message", "group > inner fails", "also fails"], 5],
  ["node", "node_fail_spec.log", ["fails with message", "group > inner fails", "also fails"], 5],
  ["node", "node_pass.log", [], 1],
  ["jest", "jest_fail.log", ["group › inner fails", "also fails"], 4],
  ["jest", "jest_fail_verbose.log", ["group › inner fails", "also fails"], 4],
  ["jest", "jest_pass.log", [], 1],
  ["vitest", "vitest_fail.log", [
    "vt/sample.test.mjs > group > inner fails",
    "vt/sample.test.mjs > also fails",
  ], 4],
  ["vitest", "vitest_pass.log", [], 1],
  ["cargo", "cargo_fail.log", ["tests::fails_with_message", "tests::nested::inner_fails"], 4],
  ["cargo", "cargo_pass.log", [], 1],
  ["go", "go_fail.log", ["TestFailsWithMessage", "TestGroup", "TestGroup/inner_fails"], 3],
  ["go", "go_fail_verbose.log", ["TestFailsWithMessage", "TestGroup", "TestGroup/inner_fails"], 5],
  ["go", "go_pass.log", [], 1],
  [
    "go-json",
    "go_fail.json.log",
    ["TestFailsWithMessage", "TestGroup/inner_fails", "TestGroup"],
    5,
  ],
  ["go-json", "go_pass.json.log", [], 1],
];

for (const [format, file, failing, ran] of CASES) {
  Deno.test(`${format} parser on ${file}`, () => {
    const r = parseFailingTests(format, read(file));
    assert.deepEqual(r.failing, failing);
    assert.equal(r.ran, ran);
  });
}

Deno.test("pytest verbose lines, dedup, order; deno fallback without FAILURES section", () => {
  const log = [
    "t.py::test_b FAILED                                  [ 50%]",
    "t.py::test_a PASSED                                  [ 75%]",
    "=========================== short test summary info ============================",
    "FAILED t.py::test_b - assert 1 == 2",
    "FAILED t.py::test_c",
    "==================== 2 failed, 1 passed in 0.12s ====================",
  ].join("\n");
  assert.deepEqual(parseFailingTests("pytest", log), {
    failing: ["t.py::test_b", "t.py::test_c"],
    passing: ["t.py::test_a"],
    ran: 3,
  });
  const deno = "a ... ok (1ms)\nb ... FAILED (2ms)\nc ... FAILED (due to 1 failed step) (3ms)\n";
  assert.deepEqual(parseFailingTests("deno", deno), { failing: ["b"], passing: ["a"], ran: null });
});

Deno.test("a printed fake PASSED line teaches nothing (empty = learned nothing)", () => {
  // A fake line shows as "passing" but no summary says anything ran: the judgement's
  // tests-none-ran guard (kernel/contract) keeps such a run from passing.
  const fake = "PASSED tests/test_x.py::test_everything\nall good!\n";
  assert.deepEqual(parseFailingTests("pytest", fake), {
    failing: [],
    passing: ["tests/test_x.py::test_everything"],
    ran: null,
  });
  assert.deepEqual(parseFailingTests("cargo", ""), { failing: [], passing: [], ran: null });
  assert.deepEqual(parseFailingTests("go-json", "{not json\n[1]\n"), {
    failing: [],
    passing: [],
    ran: null,
  });
});

Deno.test("parsers never throw, results are deduplicated (property)", () => {
  const interesting = fc.constantFrom(
    "FAILED ",
    " - ",
    "--- FAIL: ",
    " (0.00s)",
    "test ",
    " ... FAILED",
    "not ok 1 - ",
    "# Subtest: ",
    "  ● ",
    " FAIL  a > ",
    "✖ ",
    "▶ ",
    " => ./x.ts:1:1",
    "FAILURES",
    '{"Action":"fail","Test":"T"}',
    "\n",
    "\x1b[31m",
    "# tests 3",
    "Tests:       1 failed, 1 total",
  );
  const text = fc.array(fc.oneof(interesting, fc.string()), { maxLength: 40 }).map((p) =>
    p.join("")
  );
  fc.assert(
    fc.property(fc.constantFrom(...TEST_FORMATS), text, (format, log) => {
      const r = parseFailingTests(format, log);
      assert.ok(Array.isArray(r.failing));
      assert.equal(new Set(r.failing).size, r.failing.length);
      assert.ok(r.ran === null || Number.isFinite(r.ran));
    }),
    { numRuns: 300 },
  );
});

// Passing ids (test-level grading) use the same id scheme as failing ones, on the real fixtures.
const PASSING: [TestFormat, string, string[]][] = [
  ["deno", "deno_fail.log", ["adds numbers", "group ... inner ok"]],
  ["deno", "deno_fail_nocolor.log", ["adds numbers", "group ... inner ok"]],
  ["node", "node_fail.log", ["adds numbers", "group > inner ok"]],
  ["node", "node_fail_spec.log", ["adds numbers", "group > inner ok"]],
  ["jest", "jest_fail.log", ["adds numbers", "group › inner ok"]],
  ["jest", "jest_fail_verbose.log", ["adds numbers", "group › inner ok"]],
  ["cargo", "cargo_fail.log", ["tests::adds_numbers", "tests::nested::inner_ok"]],
  ["go", "go_fail_verbose.log", ["TestAdds", "TestGroup/inner_ok"]],
  ["go-json", "go_fail.json.log", ["TestAdds", "TestGroup/inner_ok"]],
  // The default pytest and vitest reporters do not name passing tests: unknown, so empty.
  ["pytest", "pytest_fail.log", []],
  ["vitest", "vitest_fail.log", []],
];

for (const [format, file, passing] of PASSING) {
  Deno.test(`${format} parser names passing tests on ${file}`, () => {
    const r = parseFailingTests(format, read(file));
    assert.deepEqual(r.passing, passing);
    for (const id of passing) assert.ok(!r.failing.includes(id));
  });
}
