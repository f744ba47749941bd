/**
 * One entry point to read the report a {@link ReportPlan} produced.
 *
 * @module
 */
import type { TestOutcome } from "../../kernel/contract/differential.ts";
import { parseJunit, TestResultsError } from "./junit.ts";
import { parseJestJson } from "./jest.ts";
import { parseMochaReport } from "./mocha.ts";
import type { ReportPlan, ReportReader } from "./plan.ts";

/** Options of {@link readReport}. */
export interface ReadReportOptions {
  /** The tree the check ran in (makes absolute test files repository-relative). */
  readonly root?: string;
  /** Largest accepted report in bytes (default 64 MiB). */
  readonly maxBytes?: number;
}

/**
 * Reads a report with the reader a plan names. Throws {@link TestResultsError}
 * only (see {@link parseJunit} and {@link parseMochaReport}); an empty report
 * (the runner never reached its end) is `report_empty`.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { readReport } from "./read.ts";
 * deepEqual(
 *   readReport("junit-pytest", '<testsuites><testsuite><testcase classname="tests.test_x" name="test_add" file="tests/test_x.py"/></testsuite></testsuites>'),
 *   [{ id: "tests/test_x.py::test_add", file: "tests/test_x.py", status: "passed" }],
 * );
 * ```
 */
export function readReport(
  reader: ReportReader | ReportPlan,
  text: string,
  options: ReadReportOptions = {},
): TestOutcome[] {
  const r = typeof reader === "string" ? reader : reader.reader;
  if (text.trim() === "") throw new TestResultsError("report_empty", "the test report is empty");
  const limits = options.maxBytes !== undefined ? { maxBytes: options.maxBytes } : {};
  switch (r) {
    case "junit-node":
      return parseJunit(text, { ids: "node", ...limits });
    case "junit-pytest":
      return parseJunit(text, { ids: "pytest", ...limits });
    case "junit-vitest":
      return parseJunit(text, { ids: "vitest", ...limits });
    case "junit-deno":
      return parseJunit(text, { ids: "deno", ...limits });
    case "jest-json":
      return parseJestJson(text, {
        ...limits,
        ...(options.root !== undefined ? { root: options.root } : {}),
      });
    case "mocha-hook":
      return parseMochaReport(text, {
        ...limits,
        ...(options.root !== undefined ? { root: options.root } : {}),
      });
  }
}
