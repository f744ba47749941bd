import assert from "node:assert/strict";
import fc from "fast-check";
import {
  denoStepIds,
  denoTestEnd,
  parseJunit,
  parseMochaReport,
  readReport,
  simpleShellWords,
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
      fc.constantFrom("node", "pytest", "vitest", "deno"),
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

const xmlEsc = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

Deno.test("deno junit: steps become `parent ... step`, files lose their ./", () => {
  const xml = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="deno test" tests="6" failures="2" errors="0" time="0.1">
  <testsuite name="./a_test.ts" tests="5" disabled="1" errors="0" failures="2">
    <testcase name="group" classname="./a_test.ts" time="0.005" line="1" col="6">
      <failure message="1 test step failed">1 test step failed.</failure>
    </testcase>
    <testcase name="a &gt; b" classname="./a_test.ts" time="0.000" line="6" col="6"></testcase>
    <testcase name="group &gt; inner a" classname="./a_test.ts" line="2" col="11">
      <failure message="Uncaught Error: x">Error: x</failure>
    </testcase>
    <testcase name="group &gt; inner a &gt; deep" classname="./a_test.ts"><skipped/></testcase>
  </testsuite>
  <testsuite name="https://x.test/r_test.ts"><testcase name="far" classname="https://x.test/r_test.ts"/></testsuite>
  <testsuite name="./../up_test.ts"><testcase name="up" classname="./../up_test.ts"/></testsuite>
</testsuites>`;
  assert.deepEqual(readReport("junit-deno", xml), [
    { id: "group", file: "a_test.ts", status: "failed" },
    { id: "a > b", file: "a_test.ts", status: "passed" },
    { id: "group ... inner a", file: "a_test.ts", status: "failed" },
    { id: "group ... inner a ... deep", file: "a_test.ts", status: "skipped" },
    { id: "far", status: "passed" },
    { id: "up", status: "passed" },
  ]);
  // deno's report of a run in which every test file exited as it loaded: no test at all.
  assert.deepEqual(readReport("junit-deno", '<testsuites name="deno test" tests="0"/>'), []);
});

Deno.test("property: generated deno junit reports give back each step path as the text parser names it", () => {
  const name = fc.stringMatching(/^[a-z<>&" ]{1,6}$/).filter((n) => n.trim() === n);
  // A tree of tests: each test some steps deep; deno writes every level as its own case.
  const tree = fc.array(
    fc.tuple(name, fc.array(fc.array(name, { maxLength: 2 }), { maxLength: 3 })),
    {
      maxLength: 5,
    },
  );
  fc.assert(
    fc.property(fc.constantFrom("a_test.ts", "t/b_test.ts"), tree, (file, tests) => {
      const expected = new Map<string, string>();
      for (const [top, paths] of tests) {
        expected.set(top, top);
        for (const path of paths) {
          for (let i = 1; i <= path.length; i++) {
            const levels = [top, ...path.slice(0, i)];
            expected.set(levels.join(" > "), levels.join(" ... "));
          }
        }
      }
      // A name that reads like a step path of another test is ambiguous: leave those out.
      const junitNames = [...expected.keys()];
      const ambiguous = junitNames.some((n) =>
        junitNames.some((m) => m !== n && n.startsWith(`${m} > `) && expected.get(n) === n)
      );
      fc.pre(!ambiguous && junitNames.every((n) => !n.includes(" ... ")));
      const body = junitNames.map((n) => `<testcase name="${xmlEsc(n)}" classname="./${file}"/>`)
        .join("");
      const got = parseJunit(
        `<testsuites><testsuite name="./${file}">${body}</testsuite></testsuites>`,
        {
          ids: "deno",
        },
      );
      assert.deepEqual(got.map((o) => o.id), junitNames.map((n) => expected.get(n)!));
      assert.ok(got.every((o) => o.file === file && o.status === "passed"));
    }),
  );
});

Deno.test("property: denoStepIds is bounded on hostile names and keeps every outcome", () => {
  const part = fc.constantFrom("a", " > ", "b", " ... ", ">");
  fc.assert(
    fc.property(
      fc.array(fc.array(part, { maxLength: 40 }).map((p) => p.join("")), { maxLength: 30 }),
      (names) => {
        const outcomes = names.map((id) => ({ id, status: "passed" as const }));
        const got = denoStepIds(outcomes);
        assert.equal(got.length, outcomes.length);
        // A name without ` > ` is its own id; same name, same id.
        got.forEach((o, i) => {
          if (!names[i]!.includes(" > ")) assert.equal(o.id, names[i]);
          const j = names.indexOf(names[i]!);
          assert.equal(o.id, got[j]!.id);
        });
      },
    ),
  );
  const long = Array.from({ length: 5000 }, () => "x").join(" > ");
  const t0 = performance.now();
  const ids = denoStepIds([{ id: "x", status: "passed" }, { id: long, status: "passed" }]);
  assert.equal(ids[1]!.id, long, "a name past 4096 characters stays as it is");
  assert.ok(performance.now() - t0 < 1000);
});

Deno.test("deno plans: --junit-path right after `test`, only for deno test run directly", () => {
  const plan = (command: string) =>
    structuredReportPlan({ command, format: "deno", reportDir: "/r d" });
  const command = (c: string) => {
    const r = plan(c);
    return r.ok ? r.plan.command ?? "" : `refused: ${r.reason}`;
  };
  const flag = "--junit-path='/r d/vouch-junit.xml'";
  assert.equal(command("deno test"), `deno test ${flag}`);
  assert.equal(command("deno test -A tests/ -- --arg"), `deno test ${flag} -A tests/ -- --arg`);
  assert.equal(
    command("'/opt/x y/deno' test --no-check"),
    `'/opt/x y/deno' test ${flag} --no-check`,
  );
  assert.equal(command("npx -y deno@2.9.6 test"), `npx -y deno@2.9.6 test ${flag}`);
  assert.equal(command("deno test src/*_test.ts"), `deno test ${flag} src/*_test.ts`);
  const r = plan("deno test");
  assert.ok(r.ok && r.plan.reader === "junit-deno" && r.plan.reportPath === "/r d/vouch-junit.xml");
  for (
    const refused of [
      "deno task test",
      "deno lint && deno test",
      "deno test; true",
      "deno test | tee log",
      "DENO_DIR=/x deno test",
      "deno test --junit-path=mine.xml",
      "deno test --reporter=junit",
      "deno test $ARGS",
      'deno test "$(echo x)"',
      "deno test \\\n -A",
      "deno --quiet test",
      "mydeno test",
      "deno test 'unterminated",
      "npx deno-lint test",
    ]
  ) {
    assert.match(command(refused), /^refused: /, refused);
  }
});

Deno.test("property: simple shell words read back what was written; anything else is null or in bounds", () => {
  const plainWord = fc.stringMatching(/^[\w@%+=:,./*-]{1,8}$/);
  const word = fc.oneof(
    plainWord.map((w) => ({ text: w, raw: w })),
    fc.stringMatching(/^[\w $;&|<>()"\\-]{0,8}$/).map((w) => ({ text: w, raw: `'${w}'` })),
    fc.stringMatching(/^[\w ';&|<>()-]{0,8}$/).map((w) => ({ text: w, raw: `"${w}"` })),
  );
  fc.assert(
    fc.property(
      fc.array(word, { minLength: 1, maxLength: 6 }),
      fc.constantFrom(" ", "  ", "\t"),
      (ws, gap) => {
        const command = ws.map((w) => w.raw).join(gap);
        const got = simpleShellWords(command);
        assert.ok(got !== null, command);
        assert.deepEqual(got.map((w) => w.text), ws.map((w) => w.text));
        const rest = ws.map((w) => w.raw).join(gap);
        const at = denoTestEnd(`deno test${gap}${rest}`);
        assert.equal(at, "deno test".length);
      },
    ),
  );
  fc.assert(
    fc.property(fc.string({ maxLength: 40 }), (command) => {
      const at = denoTestEnd(command);
      if (at !== null) {
        assert.ok(at > 0 && at <= command.length);
        assert.match(command.slice(0, at), /test$/);
        const p = structuredReportPlan({ command, format: "deno", reportDir: "/r" });
        if (p.ok) {
          assert.equal(p.plan.command!.replace(" --junit-path=/r/vouch-junit.xml", ""), command);
        }
      }
    }),
  );
});
