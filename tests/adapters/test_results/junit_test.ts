import assert from "node:assert/strict";
import fc from "fast-check";
import {
  parseJunit,
  parseMochaReport,
  readReport,
  structuredReportPlan,
  TestResultsError,
  tryParseJunit,
} from "../../../adapters/test_results/mod.ts";

function code(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof TestResultsError, `not a TestResultsError: ${e}`);
    return e.code;
  }
  return "no error";
}

Deno.test("hostile or foreign reports fail with a stable code, never anything else", () => {
  assert.equal(
    code(() => parseJunit("<testsuites>" + " ".repeat(100), { ids: "node", maxBytes: 50 })),
    "report_too_large",
  );
  assert.equal(code(() => parseJunit("not xml at all <<<", { ids: "node" })), "report_unparsable");
  assert.equal(
    code(() => parseJunit("<testsuites><testcase></testsuites>", { ids: "node" })),
    "report_unparsable",
  );
  const bomb =
    '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;">]><testsuites><testcase name="&b;"/></testsuites>';
  assert.equal(code(() => parseJunit(bomb, { ids: "node" })), "report_unparsable");
  assert.equal(code(() => parseJunit("<html><body/></html>", { ids: "node" })), "report_not_junit");
  const many = `<testsuites>${'<testcase name="t"/>'.repeat(11)}</testsuites>`;
  assert.equal(
    code(() => parseJunit(many, { ids: "node", maxTests: 10 })),
    "report_too_many_tests",
  );
  assert.equal(
    code(() => parseJunit(new Uint8Array([0x3c, 0xff, 0xfe]), { ids: "node" })),
    "report_unparsable",
  );
  assert.equal(code(() => readReport("junit-node", "  \n")), "report_empty");
  assert.equal(code(() => parseMochaReport('{"vouch":"other"}\n')), "report_unparsable");
  assert.equal(code(() => parseMochaReport("{oops\n")), "report_unparsable");
  // Deep nesting is read without recursion.
  const deep = "<testsuite name='s'>".repeat(2000) + "<testcase name='t'/>" +
    "</testsuite>".repeat(2000);
  const r = tryParseJunit(`<testsuites>${deep}</testsuites>`, { ids: "node" });
  if (r.ok) assert.equal(r.outcomes[0]!.id.split(" > ").length, 2001);
  else assert.equal(r.error.code, "report_unparsable");
});

Deno.test("property: any input either parses or fails as a TestResultsError", () => {
  const junitish = fc.array(
    fc.constantFrom(
      "<testsuites>",
      "</testsuites>",
      "<testsuite name='a &amp; b'>",
      "</testsuite>",
      "<testcase name='x'/>",
      "<testcase name='y'><failure/></testcase>",
      "<testcase name='z'><skipped/></testcase>",
      "<!--c-->",
      "&lt;",
      "<![CDATA[x]]>",
      "<",
      ">",
      '"',
    ),
    { maxLength: 20 },
  ).map((xs) => xs.join(""));
  fc.assert(
    fc.property(
      fc.oneof(junitish, fc.string()),
      fc.constantFrom("node", "pytest", "vitest"),
      (xml, ids) => {
        const r = tryParseJunit(xml, { ids: ids as "node" });
        if (!r.ok) assert.ok(r.error instanceof TestResultsError);
        else {for (const o of r.outcomes) {
            assert.ok(
              ["passed", "failed", "skipped", "error"].includes(o.status),
            );
          }}
      },
    ),
  );
});

Deno.test("property: generated node junit reports give back every case with its suites' names", () => {
  const name = fc.stringMatching(/^[a-z<>&" ]{1,6}$/);
  const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;");
  const status = fc.constantFrom("passed", "failed", "skipped", "error");
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.array(name, { maxLength: 3 }), name, status), { maxLength: 12 }),
      (cases) => {
        const body = cases.map(([suites, n, s]) => {
          const child = s === "failed"
            ? "<failure/>"
            : s === "error"
            ? "<error/>"
            : s === "skipped"
            ? "<skipped/>"
            : "";
          return suites.map((x) => `<testsuite name="${esc(x)}">`).join("") +
            `<testcase name="${esc(n)}">${child}</testcase>` + "</testsuite>".repeat(suites.length);
        }).join("");
        const got = parseJunit(`<testsuites>${body}</testsuites>`, { ids: "node" });
        assert.deepEqual(
          [...got].map((o) => `${o.id}|${o.status}`).sort(),
          cases.map(([suites, n, s]) =>
            `${[...suites.map((x) => x.trim()), n.trim()].join(" > ")}|${s}`
          ).sort(),
        );
      },
    ),
  );
});

Deno.test("pytest ids: classes, parametrize and the xunit2 form without file", () => {
  const xml = `<testsuites><testsuite name="pytest">
    <testcase classname="pkg.tests.test_x.TestA" name="test_m[a-1]" file="pkg/tests/test_x.py"/>
    <testcase classname="tests.test_y" name="test_f"><error message="setup"/></testcase>
  </testsuite></testsuites>`;
  assert.deepEqual(parseJunit(xml, { ids: "pytest" }).map((o) => [o.id, o.status]), [
    ["pkg/tests/test_x.py::TestA::test_m[a-1]", "passed"],
    ["tests/test_y.py::test_f", "error"],
  ]);
});

Deno.test("plans refuse what would change the run, and quote paths", () => {
  const dir = "/tmp/with space";
  const n = structuredReportPlan({
    command: "npm test",
    format: "node",
    reportDir: dir,
    env: { NODE_OPTIONS: "--max-old-space-size=512" },
  });
  assert.ok(n.ok);
  assert.equal(
    n.plan.env.NODE_OPTIONS,
    '--max-old-space-size=512 --test-reporter=tap --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination="/tmp/with space/vouch-junit.xml"',
  );
  assert.equal(
    structuredReportPlan({ command: "npm test", format: "node", reportDir: dir, nodeMajor: 24 })
      .ok && "spec",
    "spec",
  );
  assert.equal(
    structuredReportPlan({
      command: "npm test",
      format: "node",
      reportDir: dir,
      configTexts: ['{"scripts":{"test":"node --test --test-reporter=dot"}}'],
    }).ok,
    false,
  );
  assert.equal(
    structuredReportPlan({ command: "pytest --junitxml=x.xml", format: "pytest", reportDir: dir })
      .ok,
    false,
  );
  const p = structuredReportPlan({ command: "pytest", format: "pytest", reportDir: dir });
  assert.ok(
    p.ok &&
      p.plan.env.PYTEST_ADDOPTS ===
        "--junitxml='/tmp/with space/vouch-junit.xml' -o junit_family=xunit1",
  );
  const m = structuredReportPlan({ command: "mocha", format: "mocha", reportDir: "/r" });
  assert.ok(
    m.ok && m.plan.files[0]?.path === "/r/vouch-mocha-hook.cjs" &&
      m.plan.env.VOUCH_MOCHA_REPORT === "/r/vouch-mocha.jsonl",
  );
  assert.equal(
    structuredReportPlan({ command: "npm test && vitest run", format: "vitest", reportDir: dir })
      .ok,
    false,
  );
  assert.equal(
    structuredReportPlan({
      command: "npx vitest run --reporter=dot",
      format: "vitest",
      reportDir: dir,
    }).ok,
    false,
  );
  const v = structuredReportPlan({ command: "npx vitest run", format: "vitest", reportDir: "/r" });
  assert.ok(
    v.ok &&
      v.plan.command ===
        "npx vitest run --reporter=default --reporter=junit --outputFile.junit=/r/vouch-junit.xml",
  );
  assert.equal(
    structuredReportPlan({ command: "cargo test", format: "cargo", reportDir: dir }).ok,
    false,
  );
});
