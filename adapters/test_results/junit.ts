/**
 * JUnit XML reports (node --test's `junit` reporter, pytest `--junitxml`,
 * vitest's `junit` reporter, `deno test --junit-path`) read into per-test outcomes whose ids are the
 * ones the text parsers of `adapters/test_failures/` give the same tests.
 * Parsed with saxes (a strict, streaming XML parser: no recursion, no entity
 * expansion beyond XML's five); bounded; untrusted input only ever fails as a
 * {@link TestResultsError}.
 *
 * @module
 */
import { SaxesParser } from "saxes";
import { VouchError } from "../../kernel/errors/mod.ts";
import type { TestOutcome, TestOutcomeStatus } from "../../kernel/contract/differential.ts";

/** Stable codes of {@link TestResultsError}. */
export type TestResultsErrorCode =
  | "report_too_large"
  | "report_unparsable"
  | "report_not_junit"
  | "report_too_many_tests"
  | "report_empty"
  | "report_incomplete";

/** A structured test report vouch cannot use. */
export class TestResultsError extends VouchError<TestResultsErrorCode> {}

/** Whose ids a report's test cases get. */
export type JunitIds = "node" | "pytest" | "vitest" | "deno";

/** Options of {@link parseJunit}. */
export interface ParseJunitOptions {
  /** Whose id convention to follow. */
  readonly ids: JunitIds;
  /** Largest accepted report in bytes (default 64 MiB). */
  readonly maxBytes?: number;
  /** Most test cases accepted (default 1,000,000). */
  readonly maxTests?: number;
}

/** Default bounds of {@link parseJunit}. */
export const JUNIT_LIMITS = { maxBytes: 64 * 1024 * 1024, maxTests: 1_000_000 } as const;

/**
 * The bounds every report parser applies: a report of more than `maxBytes`
 * (default {@linkcode JUNIT_LIMITS}) is refused (`report_too_large`); returns
 * the most tests it may hold.
 *
 * @example
 * ```ts
 * import { equal, throws } from "node:assert/strict";
 * import { reportBounds } from "./junit.ts";
 * equal(reportBounds(10, { maxTests: 5 }), 5);
 * throws(() => reportBounds(10, { maxBytes: 9 }), /test report is 10 bytes, the limit is 9/);
 * ```
 */
export function reportBounds(
  size: number,
  options: { readonly maxBytes?: number; readonly maxTests?: number },
): number {
  const maxBytes = options.maxBytes ?? JUNIT_LIMITS.maxBytes;
  if (size > maxBytes) {
    throw new TestResultsError(
      "report_too_large",
      `test report is ${size} bytes, the limit is ${maxBytes}`,
    );
  }
  return options.maxTests ?? JUNIT_LIMITS.maxTests;
}

const RANK: Readonly<Record<TestOutcomeStatus, number>> = {
  passed: 0,
  skipped: 1,
  error: 2,
  failed: 3,
};

/** `tests.test_calc.TestCls` + file `tests/test_calc.py` + `test_m` -> `tests/test_calc.py::TestCls::test_m`. */
function pytestId(file: string | undefined, classname: string, name: string): {
  id: string;
  file: string;
} {
  const parts = classname.split(".").filter((p) => p !== "");
  if (file !== undefined && file.endsWith(".py")) {
    const module = file.slice(0, -3).replaceAll("/", ".");
    const rest = classname === module
      ? []
      : classname.startsWith(module + ".")
      ? classname.slice(module.length + 1).split(".")
      : parts.filter((p) => /^[A-Z]/.test(p));
    return { id: [file, ...rest, name].join("::"), file };
  }
  // No file (xunit2): module segments up to the first class-like (capitalised) one.
  const cls = parts.findIndex((p) => /^[A-Z]/.test(p));
  const moduleParts = cls < 0 ? parts : parts.slice(0, cls);
  const guessed = `${moduleParts.join("/")}.py`;
  return { id: [guessed, ...(cls < 0 ? [] : parts.slice(cls)), name].join("::"), file: guessed };
}

interface OpenCase {
  readonly name: string;
  readonly classname: string;
  readonly file: string | undefined;
  readonly suites: readonly string[];
  status: TestOutcomeStatus;
}

/** `./tests/x_test.ts` -> `tests/x_test.ts`; anything else (a URL, `..`, empty parts): none. */
function denoFile(classname: string): string | undefined {
  if (!classname.startsWith("./")) return undefined;
  const rest = classname.slice(2);
  return rest.split("/").every((p) => p !== "" && p !== "." && p !== "..") ? rest : undefined;
}

function outcomeOf(c: OpenCase, ids: JunitIds): TestOutcome {
  if (ids === "pytest") {
    const { id, file } = pytestId(c.file, c.classname, c.name);
    return { id, file, status: c.status };
  }
  if (ids === "deno") {
    // deno names a file's suite and each case's classname `./path/to/x_test.ts` (cwd-relative).
    const file = denoFile(c.classname);
    return { id: c.name, ...(file !== undefined ? { file } : {}), status: c.status };
  }
  if (ids === "vitest") {
    const file = c.classname !== "" ? c.classname : c.suites.at(-1);
    return {
      id: [file, c.name].filter((x) => x !== undefined && x !== "").join(" > "),
      ...(file !== undefined && file !== "" ? { file } : {}),
      status: c.status,
    };
  }
  return {
    id: [...c.suites, c.name].join(" > "),
    ...(c.file !== undefined && c.file !== "" ? { file: c.file } : {}),
    status: c.status,
  };
}

/**
 * Reads a JUnit XML report into per-test outcomes, in document order. A test
 * case with `<failure>` failed, with `<error>` errored, with `<skipped>` was
 * skipped (node's `todo`, pytest's `xfail` too), else passed. Ids:
 * - `node`: the enclosing `<testsuite>` names and the case name joined by
 *   ` > ` (`math > deep > divs`), as the node text parser names them;
 * - `pytest`: the node id `tests/test_x.py::TestCls::test_m[1]` (from `file`
 *   when the report has it, `-o junit_family=xunit1`, else from `classname`);
 * - `vitest`: `file > describe > test` (`classname` is the file).
 * - `deno`: the test name, a step's as the deno text parser names it
 *   (`group ... step`: deno writes `group > step`, see {@link denoStepIds}); the file is
 *   `classname` without its `./`.
 *
 * Throws {@link TestResultsError} (never anything else): `report_too_large`,
 * `report_unparsable` (not XML, or a DOCTYPE: JUnit needs none and entity
 * expansion is refused), `report_not_junit` (no `testsuites`/`testsuite`
 * root), `report_too_many_tests`, `report_incomplete` (node's closing counts
 * name more failing tests than the report has: node 20 writes a test with
 * subtests as a suite and drops a failure of its own body).
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { parseJunit } from "./junit.ts";
 * const xml = `<testsuites><testcase name="adds" classname="test"><failure message="x"/></testcase>
 *   <testsuite name="math"><testcase name="muls"/><testcase name="divs"><skipped/></testcase></testsuite>
 * </testsuites>`;
 * deepEqual(parseJunit(xml, { ids: "node" }), [
 *   { id: "adds", status: "failed" },
 *   { id: "math > muls", status: "passed" },
 *   { id: "math > divs", status: "skipped" },
 * ]);
 * ```
 */
export function parseJunit(xml: string | Uint8Array, options: ParseJunitOptions): TestOutcome[] {
  const maxTests = reportBounds(typeof xml === "string" ? xml.length : xml.byteLength, options);
  let text: string;
  try {
    text = typeof xml === "string" ? xml : new TextDecoder("utf-8", { fatal: true }).decode(xml);
  } catch {
    throw new TestResultsError("report_unparsable", "test report is not UTF-8");
  }
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) {
    throw new TestResultsError("report_unparsable", "test report has a DOCTYPE (refused)");
  }
  const out: TestOutcome[] = [];
  const suites: string[] = [];
  const suiteNamed: boolean[] = [];
  let open: OpenCase | null = null;
  let depth = 0;
  let rooted = false;
  const parser = new SaxesParser({ position: false });
  parser.on("doctype", () => {
    throw new TestResultsError("report_unparsable", "test report has a DOCTYPE (refused)");
  });
  parser.on("opentag", (tag) => {
    const a = tag.attributes as Record<string, string>;
    if (depth++ === 0) {
      if (tag.name !== "testsuites" && tag.name !== "testsuite") {
        throw new TestResultsError(
          "report_not_junit",
          `test report's root is <${tag.name}>, not testsuites or testsuite`,
        );
      }
      rooted = true;
    }
    if (open !== null) {
      const s: TestOutcomeStatus | null = tag.name === "failure"
        ? "failed"
        : tag.name === "error"
        ? "error"
        : tag.name === "skipped"
        ? "skipped"
        : null;
      if (s !== null && RANK[s] > RANK[open.status]) open.status = s;
      return;
    }
    if (tag.name === "testsuite") {
      const name = a["name"];
      suiteNamed.push(name !== undefined);
      if (name !== undefined) suites.push(name.trim());
    } else if (tag.name === "testcase") {
      if (out.length >= maxTests) {
        throw new TestResultsError(
          "report_too_many_tests",
          `test report has more than ${maxTests} test cases`,
        );
      }
      open = {
        name: (a["name"] ?? "").trim(),
        classname: (a["classname"] ?? "").trim(),
        file: a["file"]?.trim(),
        suites: [...suites],
        status: "passed",
      };
    }
  });
  // node's reporter ends with `<!-- fail N -->` and the like: the counts of every test.
  const counts: Record<string, number> = {};
  parser.on("comment", (c) => {
    const m = /^\s*(tests|pass|fail|cancelled|skipped|todo) (\d+)\s*$/.exec(c);
    if (m) counts[m[1]!] = Number(m[2]);
  });
  parser.on("closetag", (tag) => {
    depth--;
    if (tag.name === "testcase" && open !== null) {
      out.push(outcomeOf(open, options.ids));
      open = null;
    } else if (tag.name === "testsuite" && open === null) {
      if (suiteNamed.pop() === true) suites.pop();
    }
  });
  try {
    parser.write(text).close();
  } catch (e) {
    if (e instanceof TestResultsError) throw e;
    const detail = e instanceof Error ? e.message.split("\n")[0] : String(e);
    throw new TestResultsError("report_unparsable", `test report is not XML: ${detail}`);
  }
  if (!rooted) {
    throw new TestResultsError("report_not_junit", "test report has no testsuites or testsuite");
  }
  if (options.ids === "node" && counts["fail"] !== undefined) {
    // node 20 writes a test with subtests as a <testsuite>: a failure of its own body is only
    // in the counts. A report that names fewer failing tests than it counts is not used.
    const named = out.filter((o) => o.status === "failed" || o.status === "error").length;
    const failed = counts["fail"] + (counts["cancelled"] ?? 0);
    if (failed > named) {
      throw new TestResultsError(
        "report_incomplete",
        `node's junit report counts ${failed} failing tests but names ${named} ` +
          "(a test with subtests failed in its own body)",
      );
    }
  }
  return options.ids === "deno" ? denoStepIds(out) : out;
}

/** Longest name whose step path is rewritten, and most ` > ` looked at in one name. */
const DENO_STEP_LIMITS = { chars: 4096, separators: 32 } as const;

/**
 * deno's junit report names a step `parent > step` (every level joined by
 * ` > `), its text output `parent ... step`. A ` > ` is a step boundary when
 * what stands before it is itself a case of the same file; those become
 * ` ... ` (the longest such parent, itself rewritten), so ids match the text
 * parser's. A name longer than 4096 characters, or a boundary past the 32nd
 * ` > ` from its end, stays as it is (the same in every run, so the
 * differential is unaffected; only a hand-written list would not match).
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { denoStepIds } from "./junit.ts";
 * deepEqual(
 *   denoStepIds([
 *     { id: "g", status: "failed" },
 *     { id: "g > s > t", status: "failed" },
 *     { id: "g > s", status: "failed" },
 *     { id: "a > b", status: "passed" },
 *   ]).map((o) => o.id),
 *   ["g", "g ... s ... t", "g ... s", "a > b"],
 * );
 * ```
 */
export function denoStepIds(outcomes: readonly TestOutcome[]): TestOutcome[] {
  const byFile = new Map<string, Set<string>>();
  for (const o of outcomes) {
    const names = byFile.get(o.file ?? "") ?? new Set<string>();
    names.add(o.id);
    byFile.set(o.file ?? "", names);
  }
  const ids = new Map<string, Map<string, string>>();
  for (const [file, names] of byFile) {
    const mapped = new Map<string, string>();
    // Shorter names first: a parent's id is known before its steps'.
    for (const name of [...names].sort((a, b) => a.length - b.length)) {
      mapped.set(name, stepId(name, mapped));
    }
    ids.set(file, mapped);
  }
  return outcomes.map((o) => ({ ...o, id: ids.get(o.file ?? "")?.get(o.id) ?? o.id }));
}

function stepId(name: string, known: ReadonlyMap<string, string>): string {
  if (name.length > DENO_STEP_LIMITS.chars) return name;
  let at = name.length;
  for (let n = 0; n < DENO_STEP_LIMITS.separators; n++) {
    at = name.lastIndexOf(" > ", at - 1);
    if (at <= 0) return name;
    const parent = known.get(name.slice(0, at));
    if (parent !== undefined) return `${parent} ... ${name.slice(at + 3)}`;
  }
  return name;
}

/** The outcome of {@link tryParseJunit}. */
export type JunitResult =
  | { readonly ok: true; readonly outcomes: readonly TestOutcome[] }
  | { readonly ok: false; readonly error: TestResultsError };

/**
 * {@link parseJunit} as a result instead of a throw.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { tryParseJunit } from "./junit.ts";
 * const r = tryParseJunit("<html/>", { ids: "node" });
 * equal(r.ok ? "" : r.error.code, "report_not_junit");
 * ```
 */
export function tryParseJunit(xml: string | Uint8Array, options: ParseJunitOptions): JunitResult {
  try {
    return { ok: true, outcomes: parseJunit(xml, options) };
  } catch (e) {
    if (e instanceof TestResultsError) return { ok: false, error: e };
    const detail = e instanceof Error ? e.message : String(e);
    return { ok: false, error: new TestResultsError("report_unparsable", detail.slice(0, 200)) };
  }
}
