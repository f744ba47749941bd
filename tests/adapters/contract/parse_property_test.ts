import assert from "node:assert/strict";
import fc from "fast-check";
import { parseContract, parseContractText } from "../../../adapters/contract/mod.ts";

const check = fc.record({
  name: fc.oneof(fc.constantFrom("a", "b", "c"), fc.string()),
  run: fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 3 }), fc.anything()),
  expect: fc.option(
    fc.record({
      exitZero: fc.option(fc.boolean(), { nil: undefined }),
      outputContains: fc.option(
        fc.oneof(fc.string(), fc.constantFrom("$json:/a=1", "$json:", "$json:/x=")),
        { nil: undefined },
      ),
    }, { requiredKeys: [] }),
    { nil: undefined },
  ),
  baseline: fc.option(fc.boolean(), { nil: undefined }),
  differential: fc.option(
    fc.record({
      against: fc.constantFrom("a", "b", "zz"),
      expect: fc.oneof(
        fc.constantFrom("changed", "unchanged", "other"),
        fc.record({ deltaWithin: fc.tuple(fc.option(fc.double()), fc.option(fc.double())) }),
      ),
    }),
    { nil: undefined },
  ),
  timeout: fc.option(fc.oneof(fc.double(), fc.integer()), { nil: undefined }),
  tests: fc.option(fc.constantFrom("pytest", "go", "nope"), { nil: undefined }),
}, { requiredKeys: ["name", "run"] });

Deno.test("parseContract never throws on arbitrary or contract-shaped input; accepted contracts are sound", () => {
  fc.assert(
    fc.property(
      fc.oneof(fc.anything(), fc.record({ checks: fc.array(check, { maxLength: 5 }) })),
      (value) => {
        const r = parseContract(value);
        if (!r.ok) {
          assert.ok(r.error.issues.length > 0);
          return;
        }
        const names = r.contract.checks.map((c) => c.name);
        assert.equal(new Set(names).size, names.length);
        assert.ok(r.contract.checks.some((c) => !c.baseline));
        for (const c of r.contract.checks) {
          assert.ok(c.timeoutMs > 0 && c.timeoutMs <= 600_000);
          if (c.differential) {
            assert.ok(
              r.contract.checks.some((b) => b.baseline && b.name === c.differential!.against),
            );
          }
          if (!c.baseline) assert.ok(c.expect.length > 0 || c.differential !== null);
        }
      },
    ),
    { numRuns: 300 },
  );
  fc.assert(fc.property(fc.string(), (text) => void parseContractText(text)), { numRuns: 200 });
});
