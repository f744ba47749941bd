/**
 * The oracle rule in the clean verifier: the patch under judgement never
 * defines the test that judges it. From the baseline's per-test results the
 * FAIL_TO_PASS / PASS_TO_PASS lists are derived for every check whose output
 * shows test ids (test-level differential); when the patch touches oracle
 * files, its non-oracle part is also graded against the BASE's tests
 * (`judgeBaseOracle`), and the verdict needs both. Every decision is one
 * sentence in the {@linkcode OracleReport}.
 *
 * @module
 */
import { deriveTestLists } from "../../kernel/contract/differential.ts";
import type {
  CheckObservation,
  ContractCheck,
  OutcomeContract,
  TestReport,
} from "../../kernel/contract/types.ts";
import { type BaseOracleJudgement, judgeBaseOracle } from "../../kernel/contract/two_oracles.ts";
import type { ChecksRun } from "../contract/run_checks.ts";
import { testFilesOf, testFormatOf, testReportOf } from "./_test_reports.ts";
import type { OracleReport, OracleTouch } from "./verifier.ts";

/** The baseline's per-test report of each check that ran, by name (null: no ids readable). */
export type BaselineReports = ReadonlyMap<string, TestReport | null>;

/**
 * The baseline's reports of a baseline run. An id that is an absolute path is
 * a whole file that failed to load (node names it by its path in the tree):
 * no test of it ran, so it is no test to pass, and it names this tree only.
 */
export function baselineReports(
  run: ChecksRun,
  configs: ReadonlyMap<string, string>,
): Map<string, TestReport | null> {
  const inTree = (ids: readonly string[] | undefined) => ids?.filter((id) => !id.startsWith("/"));
  return new Map(run.records.map((r) => {
    const report = testReportOf(r.check, r.observation, r.structured, configs);
    if (report === null) return [r.check.name, null];
    const passing = inTree(report.passing);
    const skipped = inTree(report.skipped);
    return [r.check.name, {
      ...report,
      failing: inTree(report.failing)!,
      ...(passing !== undefined ? { passing } : {}),
      ...(skipped !== undefined ? { skipped } : {}),
    }];
  }));
}

/**
 * The contract with FAIL_TO_PASS / PASS_TO_PASS lists derived from the
 * baseline for every gating check that has none and whose baseline output
 * shows test ids (its test format set so its runs are read per test).
 */
export function withDerivedLists(
  contract: OutcomeContract,
  reports: BaselineReports | null,
  configs: ReadonlyMap<string, string>,
): OutcomeContract {
  if (reports === null) return contract;
  const checks = contract.checks.map((c): ContractCheck => {
    if (c.baseline || c.testLists !== undefined) return c;
    const report = reports.get(c.name) ?? null;
    const format = testFormatOf(c, configs);
    const lists = report === null ? null : deriveTestLists(report);
    return lists === null || format === null ? c : { ...c, tests: format, testLists: lists };
  });
  return { ...contract, checks };
}

/**
 * Observations with the per-test report the (derived) contract's checks read
 * (a structured report replaces the text parser's). A deno check whose junit
 * report vouch asked for and did not get (the run ended before deno wrote it,
 * or it is unreadable) shows no tests at all: its text output, which the code
 * under test can print to, is not read instead, so every listed test is
 * missing and an exit 0 shows no test ran.
 */
export function readTests(contract: OutcomeContract, run: ChecksRun): CheckObservation[] {
  return run.records.map(({ observation: o, structured, reportPlanned }) => {
    const check = contract.checks.find((c) => c.name === o.name);
    if (check === undefined || check.tests === null) return o;
    if (structured === null && reportPlanned === true && check.tests === "deno") {
      return { ...o, testReport: null };
    }
    if (structured === null && o.testReport !== null) return o;
    return { ...o, testReport: testReportOf(check, o, structured) };
  });
}

/** Whether a derived or declared test-level judgement applies to any gating check. */
export function isTestLevel(contract: OutcomeContract): boolean {
  return contract.checks.some((c) => !c.baseline && c.testLists !== undefined);
}

/** The report of a patch that touches no oracle file (one grading: its tests are the base's). */
export function untouchedReport(
  derived: OutcomeContract,
  baseline: boolean,
  testsEditable: boolean,
): OracleReport {
  const testLevel = isTestLevel(derived);
  return {
    grading: "once",
    touched: [],
    testsEditable,
    level: testLevel ? "test" : "exit-code",
    sentences: [
      "the patch touches no test, test configuration or CI file: its tests are the base's",
      testLevel
        ? "judged per test: the base's failing tests must pass, its passing tests must still " +
          "pass, and no fewer tests may run"
        : !baseline
        ? "no baseline was run (--no-baseline), so there is no test-level differential: " +
          "judged by exit code"
        : "no per-test results could be read from the baseline's output: judged by exit " +
          "code, not per test",
    ],
  };
}

function touchedWords(touched: readonly OracleTouch[]): string {
  // Each reason leads with the kernel's sentence: "test/calc.test.js changed (node:test file ...)".
  const shown = touched.slice(0, 5).map((t) => t.reasons[0] ?? `${t.path} changed`);
  const more = touched.length > 5 ? ` and ${touched.length - 5} more` : "";
  return `${shown.join(", ")}${more}`;
}

/** The report of a patch graded against its own tests only (`--tests-editable`). */
export function editableReport(touched: readonly OracleTouch[]): OracleReport {
  return {
    grading: "patch-tests-only",
    touched,
    testsEditable: true,
    level: "exit-code",
    sentences: [
      `${touchedWords(touched)}; tests are editable (--tests-editable): graded against the ` +
      "patch's own tests only, NOT against the base's tests, so the patch may have redefined " +
      "what passes",
    ],
  };
}

/** What the base-oracle grading is judged from. */
export interface BaseGradingInput {
  readonly contract: OutcomeContract;
  /** The contract with the baseline's derived lists (what gives test-level judgement). */
  readonly derived: OutcomeContract;
  /** The patch's own grading (the patched tree). */
  readonly round: ChecksRun;
  /** The base's tests on the patch's code. */
  readonly base: ChecksRun;
  /** Whether each check passed in the base grading by the contract's own judgement. */
  readonly exitPassed: ReadonlyMap<string, boolean>;
  /** The tree both ran in (their TAP locations are under it). */
  readonly tree: string;
  /** Test files the patch rewrites (modifies and keeps). */
  readonly rewrittenFiles: ReadonlySet<string>;
  /** Whether a baseline ran (else there are no per-test lists, and the words say why). */
  readonly baselineRan: boolean;
}

/** The judgement of each gating check in the base grading, by name. */
export function judgeBaseGrading(input: BaseGradingInput): Map<string, BaseOracleJudgement> {
  const out = new Map<string, BaseOracleJudgement>();
  for (const record of input.base.records) {
    const check = input.derived.checks.find((c) => c.name === record.check.name)!;
    const mine = input.round.records.find((r) => r.check.name === check.name);
    const files = new Map([
      ...(mine !== undefined ? testFilesOf(mine.observation, input.tree, mine.structured) : []),
      ...testFilesOf(record.observation, input.tree, record.structured),
    ]);
    out.set(
      check.name,
      judgeBaseOracle({
        lists: check.testLists ?? null,
        base: testReportOf(check, record.observation, record.structured),
        patch: mine === undefined ? null : testReportOf(check, mine.observation, mine.structured),
        exitPassed: input.exitPassed.get(check.name) ?? false,
        noBaseline: !input.baselineRan,
        // Where the output locates the test, the patch must rewrite that file; where it does
        // not (mocha, vitest ids), some existing test file it rewrites. A baseline-failing
        // test is never excused either way, so a harness cheat still fails there.
        rewritten: (id) => {
          const file = files.get(id);
          return file !== undefined
            ? input.rewrittenFiles.has(file)
            : input.rewrittenFiles.size > 0;
        },
      }),
    );
  }
  return out;
}

/** The report of a patch graded by both oracles. */
export function twoOraclesReport(
  touched: readonly OracleTouch[],
  judged: ReadonlyMap<string, BaseOracleJudgement>,
): OracleReport {
  const all = [...judged.values()];
  const level = all.length > 0 && all.every((j) => j.level === "test") ? "test" : "exit-code";
  const head = `${touchedWords(touched)}; graded also against the base's tests`;
  const sentences = [...judged].flatMap(([name, j]) =>
    j.sentences.map((s) => judged.size > 1 ? `${name}: ${s}` : s)
  );
  return {
    grading: "patch-and-base-tests",
    touched,
    testsEditable: false,
    level,
    sentences: [`${head}: ${sentences[0] ?? "nothing ran"}`, ...sentences.slice(1)],
  };
}
