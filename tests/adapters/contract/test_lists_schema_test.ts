import assert from "node:assert/strict";
import { parseContract } from "../../../adapters/contract/load.ts";

Deno.test("contract file: failToPass/passToPass become testLists; the lists decide, not the exit code", () => {
  const parsed = parseContract({
    checks: [{
      name: "unit",
      run: "node --test",
      tests: "node",
      failToPass: ["a"],
      passToPass: ["b"],
    }],
  });
  assert.ok(parsed.ok);
  const check = parsed.contract.checks[0]!;
  assert.deepEqual(check.testLists, { failToPass: ["a"], passToPass: ["b"] });
  assert.deepEqual(check.expect, []);
  const plain = parseContract({ checks: [{ name: "unit", run: "node --test", tests: "node" }] });
  assert.ok(plain.ok);
  assert.equal(plain.contract.checks[0]!.testLists, undefined);
  assert.deepEqual(plain.contract.checks[0]!.expect, [{ kind: "exit-zero" }]);
});

Deno.test("contract file: lists without tests, duplicated ids, lists on a baseline check are refused", () => {
  for (
    const check of [
      { name: "u", run: "x", failToPass: ["a"] },
      { name: "u", run: "x", tests: "node", failToPass: ["a"], passToPass: ["a"] },
      { name: "u", run: "x", tests: "node", passToPass: ["a", "a"] },
      { name: "u", run: "x", baseline: true, failToPass: ["a"] },
    ]
  ) {
    const parsed = parseContract({ checks: [check, { name: "g", run: "true" }] });
    assert.equal(parsed.ok, false, JSON.stringify(check));
  }
});
