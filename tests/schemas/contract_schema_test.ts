/**
 * schemas/contract.schema.json is as strict as vouch's own contract validation
 * (adapters/contract/schema.ts): every contract zod refuses for a rule the
 * schema can express, ajv refuses too, and every contract zod accepts, ajv
 * accepts. The two rules JSON Schema cannot express are listed in the schema's
 * description and checked here to be the only differences.
 */
import assert from "node:assert/strict";
import { contractFileSchema } from "../../adapters/contract/schema.ts";
import { schemaErrors } from "./_ajv.ts";

const FILE = "contract.schema.json";
const ok = (c: unknown) => contractFileSchema.safeParse(c).success;
const ajvOk = (c: unknown) => schemaErrors(FILE, c).length === 0;

const accepted: [string, unknown][] = [
  ["one check", { checks: [{ name: "t", run: "true" }] }],
  ["argv", { checks: [{ name: "t", run: ["deno", "test"] }] }],
  ["baseline + differential", {
    checks: [
      { name: "b", run: "wc -l", baseline: true },
      { name: "d", run: "wc -l", differential: { against: "b", expect: "changed" } },
    ],
  }],
  ["lists with tests", {
    checks: [{ name: "t", run: "deno test", tests: "deno", failToPass: ["a"], passToPass: ["b"] }],
  }],
  ["exitZero false with output", {
    checks: [{ name: "t", run: "x", expect: { exitZero: false, outputContains: "boom" } }],
  }],
  ["$json expectation", {
    checks: [{ name: "t", run: "x", expect: { outputContains: "$json:/ok=true" } }],
  }],
  ["deltaWithin one bound", {
    checks: [
      { name: "b", run: "wc", baseline: true },
      { name: "d", run: "wc", differential: { against: "b", expect: { deltaWithin: [0, null] } } },
    ],
  }],
  ["setup", { checks: [{ name: "t", run: "true" }], setup: { commands: ["npm ci"] } }],
];

const refused: [string, unknown][] = [
  ["duplicate check names", {
    checks: [{ name: "t", run: "true" }, { name: "t", run: "false" }],
  }],
  ["no checks", { checks: [] }],
  ["only baselines", { checks: [{ name: "b", run: "true", baseline: true }] }],
  ["baseline with expect", {
    checks: [{ name: "b", run: "x", baseline: true, expect: { exitZero: true } }, {
      name: "t",
      run: "x",
    }],
  }],
  ["baseline with differential", {
    checks: [
      { name: "b", run: "x", baseline: true, differential: { against: "b", expect: "changed" } },
      { name: "t", run: "x" },
    ],
  }],
  ["baseline with tests", {
    checks: [{ name: "b", run: "x", baseline: true, tests: "deno" }, { name: "t", run: "x" }],
  }],
  ["lists without tests", { checks: [{ name: "t", run: "x", failToPass: ["a"] }] }],
  ["a test listed twice", {
    checks: [{ name: "t", run: "x", tests: "deno", passToPass: ["a", "a"] }],
  }],
  ["asserts nothing", { checks: [{ name: "t", run: "x", expect: { exitZero: false } }] }],
  ["malformed $json", {
    checks: [{ name: "t", run: "x", expect: { outputContains: "$json:nopointer" } }],
  }],
  ["deltaWithin without bounds", {
    checks: [
      { name: "b", run: "wc", baseline: true },
      {
        name: "d",
        run: "wc",
        differential: { against: "b", expect: { deltaWithin: [null, null] } },
      },
    ],
  }],
  ["NUL in run", { checks: [{ name: "t", run: "a\u0000b" }] }],
  ["empty program", { checks: [{ name: "t", run: [""] }] }],
  ["unknown field", { checks: [{ name: "t", run: "x", retries: 2 }] }],
  ["control character in name", { checks: [{ name: "a\nb", run: "x" }] }],
  ["timeout above the ceiling", { checks: [{ name: "t", run: "x", timeout: 10_000 }] }],
];

// Refused by vouch, not expressible in JSON Schema (named in the schema's description).
const onlyVouch: [string, unknown][] = [
  ["differential against a non-baseline", {
    checks: [{ name: "a", run: "x" }, {
      name: "d",
      run: "x",
      differential: { against: "a", expect: "changed" },
    }],
  }],
  ["deltaWithin min above max", {
    checks: [
      { name: "b", run: "wc", baseline: true },
      { name: "d", run: "wc", differential: { against: "b", expect: { deltaWithin: [3, 1] } } },
    ],
  }],
  ["a test in both lists", {
    checks: [{ name: "t", run: "x", tests: "deno", failToPass: ["a"], passToPass: ["a"] }],
  }],
  ["$json value not JSON", {
    checks: [{ name: "t", run: "x", expect: { outputContains: "$json:/a=nope" } }],
  }],
];

Deno.test("contract schema accepts what vouch accepts", () => {
  for (const [name, c] of accepted) {
    assert.ok(ok(c), `zod accepts ${name}`);
    assert.deepEqual(schemaErrors(FILE, c), [], `ajv accepts ${name}`);
  }
});

Deno.test("contract schema refuses what vouch refuses (duplicate names included)", () => {
  for (const [name, c] of refused) {
    assert.ok(!ok(c), `zod refuses ${name}`);
    assert.ok(!ajvOk(c), `ajv refuses ${name}`);
  }
});

Deno.test("contract schema: the only rules left to vouch are the documented ones", () => {
  for (const [name, c] of onlyVouch) {
    assert.ok(!ok(c), `zod refuses ${name}`);
    assert.ok(ajvOk(c), `JSON Schema cannot say ${name} (documented)`);
  }
});
