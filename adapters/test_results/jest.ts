/**
 * jest's own machine output (`jest --json --outputFile=FILE`, what vouch adds
 * to a check that runs jest directly) read into per-test outcomes whose ids
 * are jest's titles joined with ` › `, as the jest text parser names them
 * (`describe › test`).
 *
 * @module
 */
import { relative, resolve, sep } from "node:path";
import { z } from "zod";
import type { TestOutcome, TestOutcomeStatus } from "../../kernel/contract/differential.ts";
import { reportBounds, TestResultsError } from "./junit.ts";

// What vouch reads of jest's `--json` document (jest writes more; the rest is ignored).
const JestJsonSchema = z.lazy(() =>
  z.object({
    testResults: z.array(z.object({
      name: z.string(),
      status: z.string(),
      assertionResults: z.array(z.object({
        ancestorTitles: z.array(z.string()),
        title: z.string(),
        status: z.string(),
      })),
    })),
  })
);

/** Options of {@link parseJestJson}. */
export interface ParseJestJsonOptions {
  /** The tree the check ran in: absolute test files under it become repository-relative. */
  readonly root?: string;
  /** Largest accepted report in bytes (default 64 MiB). */
  readonly maxBytes?: number;
  /** Most tests accepted (default 1,000,000). */
  readonly maxTests?: number;
}

/** jest's assertion statuses; anything else (a newer jest's word) is an error, never a pass. */
const STATUS: Readonly<Record<string, TestOutcomeStatus>> = {
  passed: "passed",
  failed: "failed",
  pending: "skipped",
  skipped: "skipped",
  todo: "skipped",
  disabled: "skipped",
  focused: "passed",
};

function relativeFile(file: string, root: string | undefined): string | undefined {
  if (file === "") return undefined;
  if (root === undefined) return file;
  const rel = relative(resolve(root), resolve(root, file));
  return rel === "" || rel.startsWith("..") || rel.startsWith(sep)
    ? undefined
    : rel.split(sep).join("/");
}

/**
 * Reads jest's `--json` report: one outcome per assertion result (`pending`,
 * `todo`, `disabled` are skipped). A test file jest reports as failed (or in a
 * status this does not know) with no failed test in it (it did not load, or a
 * hook threw) is one `error` outcome
 * whose id is the file, so a suite that stops loading never reads as passing.
 * Throws {@link TestResultsError} only: `report_too_large`,
 * `report_unparsable` (not JSON, or not jest's shape), `report_too_many_tests`.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { parseJestJson } from "./jest.ts";
 * const report = JSON.stringify({ testResults: [
 *   { name: "/r/test/calc.test.js", status: "failed", assertionResults: [
 *     { ancestorTitles: ["calc"], title: "adds", status: "failed" },
 *     { ancestorTitles: [], title: "later", status: "todo" },
 *   ] },
 *   { name: "/r/test/broken.test.js", status: "failed", assertionResults: [] },
 * ] });
 * deepEqual(parseJestJson(report, { root: "/r" }), [
 *   { id: "calc › adds", file: "test/calc.test.js", status: "failed" },
 *   { id: "later", file: "test/calc.test.js", status: "skipped" },
 *   { id: "test/broken.test.js", file: "test/broken.test.js", status: "error" },
 * ]);
 * ```
 */
export function parseJestJson(text: string, options: ParseJestJsonOptions = {}): TestOutcome[] {
  const maxTests = reportBounds(text.length, options);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new TestResultsError("report_unparsable", "the jest report is not JSON");
  }
  const parsed = JestJsonSchema.safeParse(value);
  if (!parsed.success) {
    throw new TestResultsError("report_unparsable", "the jest report is not jest's --json shape");
  }
  const out: TestOutcome[] = [];
  const push = (o: TestOutcome) => {
    if (out.length >= maxTests) {
      throw new TestResultsError(
        "report_too_many_tests",
        `test report has more than ${maxTests} tests`,
      );
    }
    out.push(o);
  };
  for (const suite of parsed.data.testResults) {
    const file = relativeFile(suite.name, options.root);
    const where = file !== undefined ? { file } : {};
    for (const a of suite.assertionResults) {
      const status = Object.hasOwn(STATUS, a.status) ? STATUS[a.status]! : "error";
      push({ id: [...a.ancestorTitles, a.title].join(" › "), ...where, status });
    }
    const failedInside = suite.assertionResults.some((a) => a.status === "failed");
    const known = ["passed", "pending", "focused", "skipped"].includes(suite.status);
    if (!known && !failedInside) {
      push({ id: file ?? suite.name, ...where, status: "error" });
    }
  }
  return out;
}
