import type { TestFormat, TestReport } from "../../kernel/contract/types.ts";
import { logLines, TestIds } from "./_ids.ts";
import { parseMocha, parseTap } from "./_mocha_tap.ts";

/** Every format {@linkcode parseFailingTests} understands. */
export const TEST_FORMATS: readonly TestFormat[] = [
  "pytest",
  "deno",
  "node",
  "jest",
  "vitest",
  "cargo",
  "go",
  "go-json",
  "mocha",
  "tap",
];

function count(text: string, word: RegExp): number {
  const m = word.exec(text);
  return m ? Number(m[1]) : 0;
}

function parsePytest(log: string): TestReport {
  const ids = new TestIds();
  const passing = new TestIds();
  let ran: number | null = null;
  for (const line of logLines(log)) {
    const passed = /^(?:PASSED|XFAIL) (\S+)/.exec(line) ??
      /^(\S+::\S+) (?:PASSED|XFAIL)\b/.exec(line);
    if (passed) {
      passing.add(passed[1]!);
      continue;
    }
    const summary = /^(FAILED|ERROR) (.+)$/.exec(line);
    if (summary) {
      const rest = summary[2]!;
      const cut = rest.indexOf(" - ");
      ids.add(cut === -1 ? rest : rest.slice(0, cut));
      continue;
    }
    const verbose = /^(\S+::\S+) (FAILED|ERROR)\b/.exec(line);
    if (verbose) {
      ids.add(verbose[1]!);
      continue;
    }
    const bare = line.replace(/^=+\s*/, "").replace(/\s*=+$/, "");
    const counts = /^(\d+ \w+(?:, )?)+ in [0-9.]+s\b/.test(bare);
    if (counts || /^no tests ran in [0-9.]+s\b/.test(bare)) {
      if (!counts) ran = 0;
      else {
        ran = count(line, /(\d+) passed/) + count(line, /(\d+) failed/) +
          count(line, /(\d+) errors?\b/) + count(line, /(\d+) xfailed/) +
          count(line, /(\d+) xpassed/);
      }
    }
  }
  return { failing: ids.list, passing: passing.list, ran };
}

function parseDeno(log: string): TestReport {
  const ids = new TestIds();
  let ran: number | null = null;
  let inFailures = false;
  const fallback = new TestIds();
  const passing = new TestIds();
  const steps: { indent: number; name: string }[] = [];
  for (const line of logLines(log)) {
    if (/^running \d+ tests? from /.test(line)) steps.length = 0;
    const open = /^(\s*)(\S.*?) \.\.\.$/.exec(line);
    const ok = /^(\s*)(\S.*?) \.\.\. ok\b/.exec(line);
    if ((open || ok) && !inFailures) {
      const m = (open ?? ok)!;
      const indent = m[1]!.length;
      while (steps.length > 0 && steps.at(-1)!.indent >= indent) steps.pop();
      const id = [...steps.map((s) => s.name), m[2]!].join(" ... ");
      if (open) steps.push({ indent, name: m[2]! });
      else passing.add(id);
      continue;
    }
    if (/^(\s*)(\S.*?) \.\.\. (FAILED|ignored)\b/.test(line) && !inFailures) {
      const indent = /^(\s*)/.exec(line)![1]!.length;
      while (steps.length > 0 && steps.at(-1)!.indent >= indent) steps.pop();
    }
    if (/^\s*FAILURES\s*$/.test(line)) {
      inFailures = true;
      continue;
    }
    const summary = /^(ok|FAILED) \| (\d+) passed(?: \([^)]*\))? \| (\d+) failed/.exec(line);
    if (summary) {
      ran = (ran ?? 0) + Number(summary[2]) + Number(summary[3]);
      inFailures = false;
      continue;
    }
    if (inFailures) {
      const m = /^(.+?) => \S+:\d+:\d+$/.exec(line);
      if (m) ids.add(m[1]!);
      continue;
    }
    const listed = /^(\S.*?) \.\.\. FAILED(?! \(due to)/.exec(line);
    if (listed) fallback.add(listed[1]!);
  }
  return { failing: ids.list.length > 0 ? ids.list : fallback.list, passing: passing.list, ran };
}

function parseNode(log: string): TestReport {
  const ids = new TestIds();
  const passing = new TestIds();
  let ran: number | null = null;
  const all = logLines(log);
  // TAP reporter (the default when stdout is not a terminal).
  const stack: { indent: number; name: string }[] = [];
  for (let i = 0; i < all.length; i++) {
    const line = all[i]!;
    const sub = /^(\s*)# Subtest: (.*)$/.exec(line);
    if (sub) {
      const indent = sub[1]!.length;
      while (stack.length > 0 && stack.at(-1)!.indent >= indent) stack.pop();
      stack.push({ indent, name: sub[2]! });
      continue;
    }
    const notOk = /^(\s*)not ok \d+ - (.*?)(?: # (?:SKIP|TODO).*)?$/.exec(line);
    if (notOk) {
      const indent = notOk[1]!.length;
      let suite = false;
      for (let j = i + 1; j < all.length && j < i + 40; j++) {
        const l = all[j]!;
        if (/^\s*\.\.\.\s*$/.test(l)) break;
        if (/failureType: 'subtestsFailed'|type: 'suite'/.test(l)) suite = true;
      }
      const parents = stack.filter((s) => s.indent < indent).map((s) => s.name);
      if (!suite) ids.add([...parents, notOk[2]!].join(" > "));
      continue;
    }
    const ok = /^(\s*)ok \d+ - (.*?)( # (?:SKIP|TODO).*)?$/.exec(line);
    if (ok && ok[3] === undefined) {
      const indent = ok[1]!.length;
      let suite = false;
      for (let j = i + 1; j < all.length && j < i + 40; j++) {
        const l = all[j]!;
        if (/^\s*\.\.\.\s*$/.test(l)) break;
        if (/type: 'suite'/.test(l)) suite = true;
      }
      const parents = stack.filter((s) => s.indent < indent).map((s) => s.name);
      if (!suite) passing.add([...parents, ok[2]!].join(" > "));
      continue;
    }
    const tapTests = /^# (tests|skipped|todo) (\d+)$/.exec(line);
    if (tapTests) ran = (ran ?? 0) + (tapTests[1] === "tests" ? 1 : -1) * Number(tapTests[2]);
  }
  if (ids.list.length > 0 || ran !== null) return { failing: ids.list, passing: passing.list, ran };
  // Spec reporter.
  const suites: { indent: number; name: string }[] = [];
  for (const line of all) {
    if (/^\s*✖ failing tests:/.test(line)) break;
    const suite = /^(\s*)▶ (.*)$/.exec(line);
    if (suite) {
      const indent = suite[1]!.length;
      while (suites.length > 0 && suites.at(-1)!.indent >= indent) suites.pop();
      suites.push({ indent, name: suite[2]! });
      continue;
    }
    const fail = /^(\s*)✖ (.*?) \([0-9.]+m?s\)$/.exec(line);
    if (fail) {
      const indent = fail[1]!.length;
      const isSuiteEnd = suites.some((s) => s.indent === indent && s.name === fail[2]);
      if (isSuiteEnd) {
        while (suites.length > 0 && suites.at(-1)!.indent >= indent) suites.pop();
        continue;
      }
      const parents = suites.filter((s) => s.indent < indent).map((s) => s.name);
      ids.add([...parents, fail[2]!].join(" > "));
      continue;
    }
    const pass = /^(\s*)✔ (.*?) \([0-9.]+m?s\)$/.exec(line);
    if (pass) {
      const indent = pass[1]!.length;
      if (suites.some((s) => s.indent === indent && s.name === pass[2])) {
        while (suites.length > 0 && suites.at(-1)!.indent >= indent) suites.pop();
        continue;
      }
      const parents = suites.filter((s) => s.indent < indent).map((s) => s.name);
      passing.add([...parents, pass[2]!].join(" > "));
      continue;
    }
    const specTests = /^ℹ (tests|skipped|todo) (\d+)$/.exec(line);
    if (specTests) ran = (ran ?? 0) + (specTests[1] === "tests" ? 1 : -1) * Number(specTests[2]);
  }
  return { failing: ids.list, passing: passing.list, ran };
}

function parseJest(log: string): TestReport {
  const ids = new TestIds();
  const passing = new TestIds();
  let ran: number | null = null;
  // Verbose output: describe names indented above `✓ test (N ms)` lines.
  let describes: { indent: number; name: string }[] = [];
  for (const line of logLines(log)) {
    if (/^(PASS|FAIL) /.test(line)) describes = [];
    const test = /^(\s+)([✓✕○√×]) (.+?)(?: \(\d+(?:\.\d+)? m?s\))?$/.exec(line);
    if (test) {
      const indent = test[1]!.length;
      const parents = describes.filter((d) => d.indent < indent).map((d) => d.name);
      if (test[2] === "✓" || test[2] === "√") passing.add([...parents, test[3]!].join(" › "));
      continue;
    }
    const describe = /^(\s{2,})([^\s●].*?)\s*$/.exec(line);
    if (describe && !/^\s+at /.test(line)) {
      const indent = describe[1]!.length;
      describes = describes.filter((d) => d.indent < indent);
      describes.push({ indent, name: describe[2]! });
    }
    const bullet = /^\s{2}● (.+)$/.exec(line);
    if (bullet && !/^Test suite failed to run/.test(bullet[1]!) && !/^Console$/.test(bullet[1]!)) {
      ids.add(bullet[1]!);
      continue;
    }
    const summary = /^Tests:\s+(.*\d+ total)/.exec(line);
    if (summary) {
      const s = summary[1]!;
      ran = (ran ?? 0) + count(s, /(\d+) total/) - count(s, /(\d+) skipped/) -
        count(s, /(\d+) todo/);
    }
  }
  return { failing: ids.list, passing: passing.list, ran };
}

function parseVitest(log: string): TestReport {
  const ids = new TestIds();
  const passing = new TestIds();
  const skipped = new TestIds();
  let ran: number | null = null;
  const fallback = new TestIds();
  // The file of the test lines that follow (` ❯ test/x.test.js (3 tests | 1 failed) 26ms`):
  // vitest lists a file's tests under it without the file, its FAIL lines with it.
  let file: string | null = null;
  const withFile = (id: string) =>
    file === null || id.startsWith(`${file} > `) ? id : `${file} > ${id}`;
  for (const line of logLines(log)) {
    const header = /^ [❯✓×↓] (\S+) \(\d+ tests?\b/.exec(line);
    if (header) {
      file = header[1]!;
      continue;
    }
    const pass = file !== null
      ? /^\s{2,}[✓√] (.+?)(?: \d+ms)?$/.exec(line)
      : /^\s+[✓√] (\S.* > .+?)(?: \d+ms)?$/.exec(line);
    if (pass) {
      passing.add(withFile(pass[1]!));
      continue;
    }
    const skip = file !== null ? /^\s{2,}↓ (.+?)(?: \[skipped\])?$/.exec(line) : null;
    if (skip) {
      skipped.add(withFile(skip[1]!));
      continue;
    }
    const fail = /^ FAIL\s+(\S.* > .+?)\s*$/.exec(line);
    if (fail) {
      ids.add(fail[1]!.replace(/ \[[^\]]*\]$/, ""));
      continue;
    }
    const cross = /^\s+× (.+?)(?: \d+ms)?$/.exec(line);
    if (cross) fallback.add(withFile(cross[1]!));
    const summary = /^\s+Tests\s+(.*)\((\d+)\)\s*$/.exec(line);
    if (summary) {
      ran = (ran ?? 0) + Number(summary[2]) - count(summary[1]!, /(\d+) skipped/) -
        count(summary[1]!, /(\d+) todo/);
    }
  }
  const failing = ids.list.length > 0 ? ids.list : fallback.list;
  return {
    failing,
    passing: passing.list,
    ...(skipped.list.length > 0 ? { skipped: skipped.list } : {}),
    ran,
  };
}

function parseCargo(log: string): TestReport {
  const ids = new TestIds();
  const passing = new TestIds();
  let ran: number | null = null;
  for (const line of logLines(log)) {
    const ok = /^test (\S+) \.\.\. ok$/.exec(line);
    if (ok) {
      passing.add(ok[1]!);
      continue;
    }
    const m = /^test (\S+) \.\.\. FAILED$/.exec(line);
    if (m) {
      ids.add(m[1]!);
      continue;
    }
    const summary = /^test result: \w+\. (\d+) passed; (\d+) failed;/.exec(line);
    if (summary) ran = (ran ?? 0) + Number(summary[1]) + Number(summary[2]);
  }
  return { failing: ids.list, passing: passing.list, ran };
}

function parseGo(log: string): TestReport {
  const ids = new TestIds();
  const passing = new TestIds();
  let results = 0;
  let okPackages = 0;
  let sawSummary = false;
  for (const line of logLines(log)) {
    const m = /^\s*--- (FAIL|PASS): (\S+) \(/.exec(line);
    if (m) {
      results++;
      if (m[1] === "FAIL") ids.add(m[2]!);
      else passing.add(m[2]!);
      continue;
    }
    if (/^ok\s+\S+/.test(line)) {
      sawSummary = true;
      if (!/\[no test files\]|\[no tests to run\]/.test(line)) okPackages++;
    }
    if (/^FAIL\s+\S+/.test(line)) sawSummary = true;
  }
  const ran = results > 0 ? results : sawSummary ? okPackages : null;
  return { failing: ids.list, passing: passing.list, ran };
}

function parseGoJson(log: string): TestReport {
  const ids = new TestIds();
  const passing = new TestIds();
  let ran: number | null = null;
  for (const line of log.split("\n")) {
    if (!line.startsWith("{")) continue;
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof event !== "object" || event === null) continue;
    const { Action, Test } = event as { Action?: unknown; Test?: unknown };
    if (typeof Test !== "string") continue;
    if (Action === "fail") ids.add(Test);
    if (Action === "pass") passing.add(Test);
    if (Action === "fail" || Action === "pass") ran = (ran ?? 0) + 1;
  }
  return { failing: ids.list, passing: passing.list, ran };
}

const PARSERS: Record<TestFormat, (log: string) => TestReport> = {
  pytest: parsePytest,
  deno: parseDeno,
  node: parseNode,
  jest: parseJest,
  vitest: parseVitest,
  cargo: parseCargo,
  go: parseGo,
  "go-json": parseGoJson,
  mocha: parseMocha,
  tap: parseTap,
};

/**
 * Parses the failing-test ids out of a test runner's output: best-effort,
 * order-preserving, deduplicated. An empty `failing` means "learned nothing",
 * never "no failures". `passing` lists the tests shown passing, with the same
 * ids (test-level grading: a listed test in neither list did not run). `ran` is the number of tests a summary line reports
 * (`null` when no summary was found). Never throws.
 *
 * Ids: pytest node ids, deno test names (`parent ... step`), node test names
 * joined with ` > `, jest `describe › test`, vitest `file > describe > test`,
 * cargo paths, go test names (`TestX/sub`), mocha full titles (suites and test
 * joined by spaces, from the spec/dot/list epilogue), TAP point descriptions.
 *
 * @example
 * ```ts
 * import { parseFailingTests } from "./parse.ts";
 * const r = parseFailingTests("cargo", "test a::b ... FAILED\ntest result: FAILED. 1 passed; 1 failed; 0 ignored");
 * if (r.failing[0] !== "a::b" || r.ran !== 2) throw new Error();
 * ```
 */
export function parseFailingTests(format: TestFormat, log: string): TestReport {
  try {
    return PARSERS[format](log);
  } catch {
    return { failing: [], ran: null };
  }
}
