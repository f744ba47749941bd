import assert from "node:assert/strict";
import fc from "fast-check";
import { parseFailingTests } from "../../../adapters/test_failures/mod.ts";
import { guessTestFormat } from "../../../adapters/verify_command/mod.ts";

const dir = new URL("../../fixtures/test_logs/", import.meta.url);
const read = (name: string) => Deno.readTextFileSync(new URL(name, dir));

// Real mocha 10.8.2 runs (see tests/fixtures/test_logs/README.md): the failing suite has a
// passing test, a failing one, a nested suite with a passing and a failing member (whose title
// holds a colon and whose message spans lines), a pending test, a failing `before all` hook,
// and a second file with a passing async test that prints its duration.
const FAILING = [
  "top level fails",
  "math subtracts wrongly",
  "math nested suite divides: with colon",
  'hooks "before all" hook for "never runs"',
];
const PASSING = [
  "math adds",
  "math nested suite multiplies",
  "strings upper",
  "strings async slow",
];

Deno.test("mocha: spec, dot and TAP reporters of the same real run name the same failing tests", () => {
  const spec = parseFailingTests("mocha", read("mocha_fail.log"));
  assert.deepEqual(spec, { failing: FAILING, passing: PASSING, ran: 8 });
  const dot = parseFailingTests("mocha", read("mocha_fail_dot.log"));
  assert.deepEqual(dot.failing, FAILING);
  assert.equal(dot.ran, 8);
  assert.deepEqual(dot.passing, [], "the dot reporter names no passing test");
  const tap = parseFailingTests("tap", read("mocha_fail_tap.log"));
  assert.deepEqual(tap, { failing: FAILING, passing: PASSING, ran: 8 });
});

Deno.test("mocha: passing runs report no failures and count what ran", () => {
  assert.deepEqual(parseFailingTests("mocha", read("mocha_pass.log")), {
    failing: [],
    passing: ["strings upper", "strings async slow"],
    ran: 2,
  });
  assert.deepEqual(parseFailingTests("tap", read("mocha_pass_tap.log")), {
    failing: [],
    passing: ["strings upper", "strings async slow"],
    ran: 2,
  });
  // Through `npm test`: npm's own lines precede the listing and are not suites.
  const viaNpm = "> pkg@1.0.0 test\n> mocha\n\n" + read("mocha_pass.log");
  assert.deepEqual(parseFailingTests("mocha", viaNpm).passing, [
    "strings upper",
    "strings async slow",
  ]);
  assert.deepEqual(parseFailingTests("mocha", "no mocha here\n"), {
    failing: [],
    passing: [],
    ran: null,
  });
});

Deno.test("tap: directives, plans and nesting (node's TAP: subtests roll up into their parent)", () => {
  const log = [
    "TAP version 13",
    "ok 1 - first",
    "not ok 2 - second # TODO not yet",
    "not ok 3 third without dash",
    "ok 4 - skipped one # SKIP no db",
    "    not ok 1 - nested child",
    "not ok 5 - parent",
    "1..5",
  ].join("\n");
  assert.deepEqual(parseFailingTests("tap", log), {
    failing: ["third without dash", "parent"],
    passing: ["first"],
    ran: 4,
  });
  assert.deepEqual(parseFailingTests("tap", "1..0 # no tests\n"), {
    failing: [],
    passing: [],
    ran: 0,
  });
  const node = parseFailingTests("tap", read("node_fail.log"));
  assert.deepEqual(node.failing, ["fails with message", "group", "also fails"]);
});

Deno.test("guessTestFormat: mocha and TAP commands", () => {
  assert.equal(guessTestFormat("npm run lint && npm run mocha"), "mocha");
  assert.equal(guessTestFormat("mocha --require test/env --reporter spec test/"), "mocha");
  assert.equal(guessTestFormat("mocha -R tap"), "tap");
  assert.equal(guessTestFormat("tape test/*.js"), "tap");
  assert.equal(guessTestFormat("node --test"), "node");
});

// ---- property tests: outputs rendered the way mocha renders them parse back to their tests ----

interface Suite {
  readonly title: string;
  readonly tests: readonly { readonly title: string; readonly ok: boolean }[];
  readonly suites: readonly Suite[];
}

const title = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 :'"#-]{0,20}[A-Za-z0-9]$/)
  .filter((t) => !/ {2}|#/.test(t));
const tests = fc.array(fc.record({ title, ok: fc.boolean() }), { maxLength: 4 });
const suiteAt = (depth: number): fc.Arbitrary<Suite> =>
  fc.record({
    title,
    tests,
    suites: depth === 0 ? fc.constant([]) : fc.array(suiteAt(depth - 1), { maxLength: 2 }),
  });
const suite = suiteAt(3);

function flatten(s: Suite, path: string[], out: { id: string; ok: boolean; path: string[] }[]) {
  const here = [...path, s.title];
  for (const t of s.tests) out.push({ id: [...here, t.title].join(" "), ok: t.ok, path: here });
  for (const child of s.suites) flatten(child, here, out);
}

function renderSpec(root: Suite): string {
  const lines = ["", ""];
  let n = 0;
  const failures: { parts: string[] }[] = [];
  const walk = (s: Suite, depth: number, path: string[]) => {
    const pad = "  ".repeat(depth + 1);
    lines.push(pad + s.title);
    for (const t of s.tests) {
      if (t.ok) lines.push(`${pad}  ✔ ${t.title}`);
      else {
        lines.push(`${pad}  ${++n}) ${t.title}`);
        failures.push({ parts: [...path, s.title, t.title] });
      }
    }
    for (const c of s.suites) walk(c, depth + 1, [...path, s.title]);
  };
  walk(root, 0, []);
  const all: { ok: boolean }[] = [];
  flatten(root, [], all as never);
  lines.push("", "", `  ${all.filter((t) => t.ok).length} passing (5ms)`);
  if (failures.length > 0) {
    lines.push(`  ${failures.length} failing`, "");
    failures.forEach((f, i) => {
      const [first, ...rest] = f.parts;
      const head = `  ${i + 1}) ${first}${rest.length === 0 ? ":" : ""}`;
      lines.push(head);
      rest.forEach((p, k) =>
        lines.push(`${"  ".repeat(k + 3)} ${p}${k === rest.length - 1 ? ":" : ""}`)
      );
      lines.push(
        "     Error: boom",
        "multi-line message: not a title",
        "      at x (t.js:1:1)",
        "",
      );
    });
  }
  return lines.join("\n") + "\n";
}

function renderTap(root: Suite): string {
  const all: { id: string; ok: boolean; path: string[] }[] = [];
  flatten(root, [], all);
  const lines = all.map((t, i) => `${t.ok ? "ok" : "not ok"} ${i + 1} ${t.id}`);
  return [...lines, `# tests ${all.length}`, `1..${all.length}`].join("\n") + "\n";
}

Deno.test("property: a mocha spec run parses back to its failing and passing tests", () => {
  fc.assert(
    fc.property(suite, (root) => {
      const all: { id: string; ok: boolean; path: string[] }[] = [];
      flatten(root, [], all);
      const unique = (ids: string[]) => [...new Set(ids)];
      const r = parseFailingTests("mocha", renderSpec(root));
      assert.deepEqual(r.failing, unique(all.filter((t) => !t.ok).map((t) => t.id)));
      assert.deepEqual(r.passing, unique(all.filter((t) => t.ok).map((t) => t.id)));
      assert.equal(r.ran, all.length);
    }),
    { numRuns: 300 },
  );
});

Deno.test("property: a TAP run parses back to its failing and passing tests", () => {
  fc.assert(
    fc.property(suite, (root) => {
      const all: { id: string; ok: boolean; path: string[] }[] = [];
      flatten(root, [], all);
      const unique = (ids: string[]) => [...new Set(ids)];
      const r = parseFailingTests("tap", renderTap(root));
      assert.deepEqual(r.failing, unique(all.filter((t) => !t.ok).map((t) => t.id)));
      assert.deepEqual(r.passing, unique(all.filter((t) => t.ok).map((t) => t.id)));
      assert.equal(r.ran, all.length);
    }),
    { numRuns: 300 },
  );
});

Deno.test("property: mocha and TAP parsers never throw and return well-formed reports", () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 400 }), (log) => {
      for (const format of ["mocha", "tap"] as const) {
        const r = parseFailingTests(format, log);
        assert.ok(Array.isArray(r.failing) && r.failing.every((id) => id === id.trim() && id));
        assert.ok(r.ran === null || (Number.isInteger(r.ran) && r.ran >= 0));
      }
    }),
    { numRuns: 500 },
  );
});
