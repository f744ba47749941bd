/**
 * The report vouch's mocha hook writes (`_mocha_hook.ts`): one JSON line per
 * mocha run, read into per-test outcomes whose ids are mocha full titles, as
 * the mocha text parser names them.
 *
 * @module
 */
import { relative, resolve, sep } from "node:path";
import { z } from "zod";
import type { TestOutcome } from "../../kernel/contract/differential.ts";
import { reportBounds, TestResultsError } from "./junit.ts";

const LineSchema = z.lazy(() =>
  z.strictObject({
    vouch: z.literal("mocha-report"),
    version: z.literal(1),
    tests: z.array(z.strictObject({
      id: z.string(),
      file: z.string().nullable(),
      status: z.enum(["passed", "failed", "skipped"]),
    })),
  })
);

/** Options of {@link parseMochaReport}. */
export interface ParseMochaReportOptions {
  /** The tree the check ran in: absolute test files under it become repository-relative. */
  readonly root?: string;
  /** Largest accepted report in bytes (default 64 MiB). */
  readonly maxBytes?: number;
  /** Most tests accepted (default 1,000,000). */
  readonly maxTests?: number;
}

function relativeFile(file: string | null, root: string | undefined): string | undefined {
  if (file === null || file === "") return undefined;
  if (root === undefined) return file;
  const rel = relative(resolve(root), resolve(root, file));
  return rel === "" || rel.startsWith("..") || rel.startsWith(sep)
    ? undefined
    : rel.split(sep).join("/");
}

/**
 * Reads the hook's report: every line is one mocha run (a command may run
 * mocha more than once); outcomes in order. Throws {@link TestResultsError}
 * only: `report_too_large`, `report_unparsable` (a line that is not the
 * hook's JSON), `report_too_many_tests`.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { parseMochaReport } from "./mocha.ts";
 * const line = JSON.stringify({ vouch: "mocha-report", version: 1, tests: [
 *   { id: "calc adds", file: "/r/test/calc.js", status: "failed" },
 * ] });
 * deepEqual(parseMochaReport(line + "\n", { root: "/r" }), [
 *   { id: "calc adds", file: "test/calc.js", status: "failed" },
 * ]);
 * ```
 */
export function parseMochaReport(
  text: string,
  options: ParseMochaReportOptions = {},
): TestOutcome[] {
  const maxTests = reportBounds(text.length, options);
  const out: TestOutcome[] = [];
  for (const [n, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new TestResultsError("report_unparsable", `mocha report line ${n + 1} is not JSON`);
    }
    const parsed = LineSchema.safeParse(value);
    if (!parsed.success) {
      throw new TestResultsError(
        "report_unparsable",
        `mocha report line ${n + 1} is not a vouch mocha report`,
      );
    }
    for (const t of parsed.data.tests) {
      if (out.length >= maxTests) {
        throw new TestResultsError(
          "report_too_many_tests",
          `test report has more than ${maxTests} tests`,
        );
      }
      const file = relativeFile(t.file, options.root);
      out.push({ id: t.id, ...(file !== undefined ? { file } : {}), status: t.status });
    }
  }
  return out;
}
