// Reading a 10,000-test JUnit XML report (issue 19: <= 50 ms): node --test's
// junit reporter shape, 100 suites of 100 cases, one in 50 failing with a
// stack trace, one in 100 skipped; then the same report as pytest writes it.
// Besides the wall-clock figures, it prints the CPU time per read
// (process.cpuUsage over 20 reads), which a loaded machine inflates far less.
import process from "node:process";
import { reportFromOutcomes } from "../kernel/contract/mod.ts";
import { parseJunit } from "../adapters/test_results/mod.ts";
import { SaxesParser } from "saxes";
import { type BudgetSpec, interleavedMs } from "./_budget.ts";

const STACK =
  "Error [ERR_TEST_FAILURE]: 2 == 3\n    at TestContext.&lt;anonymous> (/r/test/x.test.js:3:27)\n"
    .repeat(6);

function nodeReport(): string {
  const parts = ['<?xml version="1.0" encoding="utf-8"?>\n<testsuites>\n'];
  for (let s = 0; s < 100; s++) {
    parts.push(`\t<testsuite name="suite ${s}" time="0.1" tests="100" failures="2" skipped="1">\n`);
    for (let t = 0; t < 100; t++) {
      const i = s * 100 + t;
      const head = `\t\t<testcase name="case ${i} &lt;&amp;&gt;" time="0.000${t}" classname="test"`;
      if (i % 50 === 0) {
        parts.push(
          `${head} failure="2 == 3">\n\t\t\t<failure type="testCodeFailure" message="2 == 3">\n${STACK}</failure>\n\t\t</testcase>\n`,
        );
      } else if (i % 100 === 1) {
        parts.push(`${head}>\n\t\t\t<skipped type="skipped" message="true"/>\n\t\t</testcase>\n`);
      } else parts.push(`${head}/>\n`);
    }
    parts.push("\t</testsuite>\n");
  }
  parts.push("\t<!-- tests 10000 -->\n</testsuites>\n");
  return parts.join("");
}

function pytestReport(): string {
  const parts = [
    '<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" tests="10000">',
  ];
  for (let i = 0; i < 10_000; i++) {
    const m = i % 100;
    const head =
      `<testcase classname="tests.test_m${m}" name="test_${i}" file="tests/test_m${m}.py" line="${i}" time="0.001"`;
    parts.push(
      i % 50 === 0
        ? `${head}><failure message="assert 1 == 2">${STACK}</failure></testcase>`
        : `${head} />`,
    );
  }
  parts.push("</testsuite></testsuites>");
  return parts.join("");
}

const node = nodeReport();
const pytest = pytestReport();

Deno.bench({
  group: "junit",
  name: `node --test junit, 10,000 tests (${(node.length / 1024 / 1024).toFixed(1)} MiB)`,
  baseline: true,
}, () => {
  const r = reportFromOutcomes(parseJunit(node, { ids: "node" }));
  if (r.failing.length !== 200 || r.ran !== 9900) throw new Error("unexpected report");
});

Deno.bench({
  group: "junit",
  name: `pytest junitxml, 10,000 tests (${(pytest.length / 1024 / 1024).toFixed(1)} MiB)`,
}, () => {
  const r = reportFromOutcomes(parseJunit(pytest, { ids: "pytest" }));
  if (r.failing.length !== 200 || r.ran !== 10_000) throw new Error("unexpected report");
});

for (const [name, xml, ids] of [["node", node, "node"], ["pytest", pytest, "pytest"]] as const) {
  for (let i = 0; i < 3; i++) parseJunit(xml, { ids });
  const before = process.cpuUsage();
  for (let i = 0; i < 20; i++) parseJunit(xml, { ids });
  const used = process.cpuUsage(before);
  console.log(
    `junit ${name}, 10,000 tests: ${
      ((used.user + used.system) / 1000 / 20).toFixed(1)
    } ms CPU per read`,
  );
}

// ------------------------------------------------------------------ budgets

/** Budgets checked by `deno task bench:check` (docs/benchmarks.md). */
export const budgets: readonly BudgetSpec[] = [{
  id: "junit.10k",
  measures: "parseJunit + reportFromOutcomes on a 10,000-test node --test JUnit report, ms",
  peer: "saxes (the XML parser it uses) over the same text with one element counter",
  bound: "<= 50 ms",
  measure: () =>
    interleavedMs(
      () => {
        const r = reportFromOutcomes(parseJunit(node, { ids: "node" }));
        if (r.failing.length !== 200 || r.ran !== 9900) throw new Error("unexpected report");
      },
      () => {
        let elements = 0;
        const p = new SaxesParser();
        p.on("opentag", () => elements++);
        p.write(node).close();
        if (elements < 10_000) throw new Error("unexpected element count");
      },
      { warmup: 3, rounds: 21, note: `${(node.length / 1024 / 1024).toFixed(1)} MiB` },
    ),
}];
