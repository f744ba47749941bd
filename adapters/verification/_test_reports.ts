/**
 * Per-test results of a check, for the test-level differential and the second
 * oracle: the check's own parser when it declares `tests`, else the format its
 * command names (`node --test`, `pytest`, `mocha`, ...), read from its output;
 * and, where the output says so, the file each test lives in (node's TAP
 * `location:`, pytest node ids).
 *
 * @module
 */
import type {
  CheckObservation,
  ContractCheck,
  TestFormat,
  TestReport,
} from "../../kernel/contract/types.ts";
import { parseFailingTests } from "../test_failures/parse.ts";
import { reportFromOutcomes } from "../../kernel/contract/differential.ts";
import type { StructuredReport } from "../contract/run_checks.ts";
import { guessTestFormat } from "../verify_command/detect.ts";
import { denoTaskCall } from "../test_results/plan.ts";
import { denoTaskOf } from "../test_results/deno_task.ts";

/**
 * The format of a check's test output: declared, else guessed from its
 * command, or from the package script it runs (`npm test` -> `scripts.test` of
 * the base's `package.json` in `configs`), or `deno` for a `deno task NAME`
 * whose task in the base's `deno.json(c)` is one simple `deno test`; null: unknown.
 */
export function testFormatOf(
  check: ContractCheck,
  configs: ReadonlyMap<string, string> = new Map(),
): TestFormat | null {
  if (check.tests !== null) return check.tests;
  const command = "shell" in check.run ? check.run.shell : check.run.argv.join(" ");
  const script = packageScriptOf(command, configs.get("package.json"));
  const task = denoTaskCall(command);
  return guessTestFormat(command) ?? (script === null ? null : guessTestFormat(script)) ??
    (task !== null && denoTaskOf(configs, task.name).ok ? "deno" : null);
}

/** The `package.json` script an `npm test` / `npm run NAME` (pnpm, yarn) command runs, or null. */
export function packageScriptOf(command: string, packageJson: string | undefined): string | null {
  if (packageJson === undefined) return null;
  const m = /^\s*(?:npm|pnpm|yarn)\s+(?:(test|t)\b|run(?:-script)?\s+([\w:.-]+))/.exec(command);
  if (m === null) return null;
  try {
    const scripts = (JSON.parse(packageJson) as { scripts?: Record<string, unknown> }).scripts;
    const script = scripts?.[m[2] ?? "test"];
    return typeof script === "string" ? script : null;
  } catch {
    return null;
  }
}

/**
 * The per-test report of one observed check, or null when no ids can be read:
 * its structured report when vouch added one and could read it, else (node only) its TAP text.
 */
export function testReportOf(
  check: ContractCheck,
  o: CheckObservation,
  structured: StructuredReport | null = null,
  configs: ReadonlyMap<string, string> = new Map(),
): TestReport | null {
  if (o.cannotRun !== null) return null;
  if (structured !== null) return reportFromOutcomes(structured.outcomes);
  const format = testFormatOf(check, configs);
  // Only node's TAP lists every test, passing or failing, the same way in every run; other
  // runners' default text output (vitest's per-file lines, mocha's dot, pytest -q) does not,
  // so without a structured report their ids are not per-test evidence.
  if (format !== "node") return null;
  const report = o.testReport ?? parseFailingTests(format, `${o.stdout}\n${o.stderr}`);
  return report.passing === undefined ? null : report;
}

/**
 * The repository-relative file of each test the output locates, by id:
 * pytest ids carry it (`tests/test_calc.py::test_add`); node's TAP reporter
 * gives `location: '<tree>/test/calc.test.js:4:1'` after each test.
 */
export function testFilesOf(
  o: CheckObservation,
  tree: string,
  structured: StructuredReport | null = null,
): Map<string, string> {
  const files = new Map<string, string>();
  for (const t of structured?.outcomes ?? []) if (t.file !== undefined) files.set(t.id, t.file);
  const text = `${o.stdout}\n${o.stderr}`;
  let current: string | null = null;
  for (const line of text.split("\n")) {
    const py = /^(?:PASSED |FAILED |ERROR )?([^\s:]+\.py)::(\S+)/.exec(line);
    if (py) files.set(`${py[1]}::${py[2]}`, py[1]!);
    const sub = /^\s*# Subtest: (.+)$/.exec(line);
    if (sub) current = sub[1]!.trim();
    const at = /^\s*location: '(.+):\d+:\d+'$/.exec(line);
    if (at && current !== null) {
      const path = at[1]!;
      if (path.startsWith(`${tree}/`)) files.set(current, path.slice(tree.length + 1));
      current = null;
    }
  }
  return files;
}
