/**
 * The second oracle: when a patch touches the tests (the oracle), its
 * non-oracle part is also graded against the BASE's tests. This judges that
 * grading, per test when ids can be read (the lists derived from the
 * baseline: baseline-failing tests must pass there, baseline-passing tests
 * must still pass), else by exit code (every base test must pass). A
 * baseline-passing test that fails against the base's version is excused only
 * when the patch rewrites the file it lives in AND the patch's own version of
 * it passes (a wrong test corrected together with the code); a
 * baseline-failing test is never excused: that is the task. Pure.
 *
 * @module
 */
import { type DifferentialOffence, judgeTestDifferential } from "./differential.ts";
import type { TestLists, TestReport } from "./types.ts";

/** What {@linkcode judgeBaseOracle} decides from. */
export interface BaseOracleInput {
  /** The lists derived from the baseline, or null (no baseline, or its ids could not be read). */
  readonly lists: TestLists | null;
  /** The base's tests run on the patched code (null: no per-test ids could be read). */
  readonly base: TestReport | null;
  /** The patch's own tests on the patched tree (null: no per-test ids could be read). */
  readonly patch: TestReport | null;
  /** Whether the base grading's command passed by its exit code (the contract's judgement). */
  readonly exitPassed: boolean;
  /** Whether the patch rewrites (modifies, keeps) the test file the test `id` lives in. */
  readonly rewritten: (id: string) => boolean;
  /** No baseline was run (`--no-baseline`): the words say so instead of "could not be read". */
  readonly noBaseline?: boolean;
}

/** A baseline-passing test that fails against the base's version, excused. */
export interface ExcusedTest {
  /** The test's id. */
  readonly id: string;
  /** One sentence for the screen. */
  readonly message: string;
}

/** The judgement of the base-oracle grading. */
export interface BaseOracleJudgement {
  /** `passed` only when the base's tests accept the patch's code. */
  readonly verdict: "passed" | "failed";
  /** `test`: per test, from ids the runner printed; `exit-code`: no ids could be read. */
  readonly level: "test" | "exit-code";
  /** What fails it (per test), in the differential's order. */
  readonly offences: readonly DifferentialOffence[];
  /** Baseline-passing tests the patch corrected (see the module doc). */
  readonly excused: readonly ExcusedTest[];
  /** Every decision, one sentence each, for the screen, `--json` and the receipts' evidence. */
  readonly sentences: readonly string[];
}

/**
 * Judges the base-oracle grading.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { judgeBaseOracle } from "./two_oracles.ts";
 * const lists = { failToPass: ["adds"], passToPass: ["subs"], minRan: 2 };
 * const cheat = judgeBaseOracle({
 *   lists,
 *   base: { failing: ["adds"], passing: ["subs"], ran: 2 },
 *   patch: { failing: [], passing: ["adds", "subs"], ran: 2 },
 *   exitPassed: false,
 *   rewritten: () => true,
 * });
 * equal(cheat.verdict, "failed");
 * equal(cheat.sentences[0], "`adds` still fails there");
 * ```
 */
export function judgeBaseOracle(input: BaseOracleInput): BaseOracleJudgement {
  const { lists, base, patch } = input;
  if (lists === null || base === null || base.passing === undefined) {
    const verdict = input.exitPassed ? "passed" : "failed";
    return {
      verdict,
      level: "exit-code",
      offences: [],
      excused: [],
      sentences: [
        (input.noBaseline === true
          ? "no baseline was run (--no-baseline), so there are no per-test lists and it is " +
            "graded by exit code: "
          : "no per-test results could be read, so it is graded by exit code: ") +
        (input.exitPassed ? "the base's tests pass there" : "the base's tests fail there"),
      ],
    };
  }
  const differential = judgeTestDifferential(lists, base);
  const patchPassing = new Set(patch?.passing ?? []);
  const excused: ExcusedTest[] = [];
  const offences: DifferentialOffence[] = [];
  for (const o of differential.offences) {
    if (
      o.class === "regressed" && o.id !== null && input.rewritten(o.id) &&
      patchPassing.has(o.id)
    ) {
      excused.push({
        id: o.id,
        message: "`" + o.id + "` fails against the base's version but the patch rewrites its " +
          "file and passes it there (a corrected test)",
      });
    } else offences.push(o);
  }
  const excusedIds = new Set(excused.map((e) => e.id));
  // The exit code may only fail because of excused tests.
  const exitExplained = input.exitPassed ||
    (excused.length > 0 && base.failing.every((id) => excusedIds.has(id)));
  const sentences = offences.map((o) => `${o.message} there`);
  if (offences.length === 0 && !exitExplained) {
    sentences.push("the base's tests exit non-zero there although none of its tests failed");
  }
  sentences.push(...excused.map((e) => e.message));
  const verdict = offences.length === 0 && exitExplained ? "passed" : "failed";
  if (verdict === "passed") {
    sentences.unshift(
      lists.failToPass.length > 0
        ? `the base's failing ${plural(lists.failToPass.length, "test")} (${
          quoted(lists.failToPass)
        }) ${
          lists.failToPass.length === 1 ? "passes" : "pass"
        } there and its passing tests still pass`
        : "every base test still passes there",
    );
  }
  return { verdict, level: "test", offences, excused, sentences };
}

function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}

function quoted(ids: readonly string[]): string {
  const shown = ids.slice(0, 5).map((id) => "`" + id + "`").join(", ");
  return ids.length > 5 ? `${shown} and ${ids.length - 5} more` : shown;
}
