/**
 * Why a check did not pass, in one sentence a user can act on: the command
 * could not start, "timed out after N s", the failing tests the output names,
 * a differential's delta against the baseline, or the contract's own reason;
 * plus, for a sandboxed check, the paths outside the tree its output reports
 * missing although they exist here (and the `--sandbox-ro` flag).
 *
 * @module
 */
import type { BaselineCapture, CheckJudgement } from "../../kernel/contract/types.ts";
import type { ProcessResult } from "../process/types.ts";
import { hiddenPathHint } from "../deps/outside_paths.ts";
import { editableInstallHint } from "../deps/python_env.ts";
import { compileGlobs } from "../../kernel/glob/glob_set.ts";
import { defaultForbidReason } from "../../kernel/scope/default_forbid.ts";

/** Exit codes a shell uses when the command could not start (126 not executable, 127 not found). */
export const CANNOT_START_EXITS: readonly number[] = [126, 127];

/** What {@linkcode checkDetail} looks at. */
export interface CheckDetailInput {
  readonly judgement: CheckJudgement;
  /** The process result, when the command was started. */
  readonly result?: ProcessResult;
  /** The check's timeout. */
  readonly timeoutMs: number;
  /** The baseline capture a differential compares against. */
  readonly capture?: BaselineCapture;
  /** Whether it ran in the bwrap sandbox (then hidden outside paths are looked for). */
  readonly sandboxed: boolean;
  /** The clean tree the check ran in. */
  readonly tree: string;
  /** Venvs the sandbox shows in the tree from elsewhere on the host (their real folders). */
  readonly hostVenvs?: readonly string[];
}

function lastLine(text: string): string {
  const line = text.trimEnd().split("\n").at(-1) ?? "";
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}

function output(result: ProcessResult): string {
  return `${result.stdout.head}\n${result.stdout.tail}\n${result.stderr.head}\n${result.stderr.tail}`;
}

/**
 * Whether a check's process could not start at all: no such program, not
 * executable, or the shell's 126/127 (`sh: 1: mocha: not found`).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { runProcess } from "../process/run.ts";
 * import { cannotStart } from "./check_detail.ts";
 * equal(cannotStart(await runProcess({ shell: "no-such-command-xyz", cwd: "/" })), true); // sh: 127
 * equal(cannotStart(await runProcess({ argv: ["/nonexistent/tool"], cwd: "/" })), true); // spawn error
 * equal(cannotStart(await runProcess({ shell: "exit 1", cwd: "/" })), false); // it ran, and failed
 * ```
 */
export function cannotStart(result: ProcessResult): boolean {
  return result.spawnError !== null ||
    (!result.timedOut && !result.cancelled && CANNOT_START_EXITS.includes(result.exitCode));
}

/**
 * One sentence on why the check did not pass (`undefined` when it passed).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { checkDetail } from "./check_detail.ts";
 * const judgement = {
 *   name: "tests", status: "failed" as const, failingTests: ["math adds", "math subtracts"],
 *   reasons: [{ code: "exit_nonzero" as const, message: "exited 1, expected 0" }],
 * };
 * equal(
 *   checkDetail({ judgement, timeoutMs: 600_000, sandboxed: false, tree: "/t" }),
 *   "exited 1, expected 0; failing tests: math adds, math subtracts",
 * );
 * ```
 */
export function checkDetail(input: CheckDetailInput): string | undefined {
  const { judgement, result } = input;
  if (judgement.status === "passed" || judgement.status === "captured") return undefined;
  const parts: string[] = [];
  if (result?.spawnError) {
    parts.push(`cannot start: ${result.spawnError.message}`);
  } else if (result?.timedOut) {
    // The limit that applied: the check's own timeout, or less when the run's deadline was near.
    const seconds = Math.min(input.timeoutMs, result.durationMs) / 1000;
    parts.push(`timed out after ${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s`);
  } else if (result === undefined && judgement.reasons.some((r) => r.code === "timed_out")) {
    parts.push("not started: the run's wall-time budget (--timeout) left no time");
  } else if (result !== undefined && cannotStart(result)) {
    const notFound = output(result).split("\n").find((l) => /not found|Permission denied/.test(l));
    parts.push(
      `exited ${result.exitCode}: a command could not start${
        notFound ? ` (${notFound.trim()})` : ""
      }`,
    );
  } else {
    const messages = judgement.reasons.map((r) => r.message);
    parts.push(messages.length > 0 ? messages.join("; ") : judgement.status);
  }
  const failing = judgement.failingTests;
  if (failing.length > 0) {
    parts.push(
      `failing tests: ${failing.slice(0, 5).join(", ")}${
        failing.length > 5 ? ` (+${failing.length - 5} more)` : ""
      }`,
    );
  }
  const differential = judgement.reasons.find((r) => r.code.startsWith("differential_"));
  if (differential !== undefined && input.capture !== undefined && result !== undefined) {
    parts.push(
      `baseline printed ${JSON.stringify(lastLine(input.capture.stdoutTail))}, now ${
        JSON.stringify(lastLine(result.stdout.tail || result.stdout.head))
      }`,
    );
  }
  if (input.sandboxed && result !== undefined) {
    const hint = hiddenPathHint(output(result), { tree: input.tree });
    if (hint !== null) parts.push(hint);
    const editable = editableInstallHint(output(result), input.tree, input.hostVenvs ?? []);
    if (editable !== null) parts.push(editable);
  }
  return parts.join("; ");
}

/** The rules a scope violation is explained against (the lists `verify`/`run` judged with). */
export interface ScopeLists {
  readonly allow: readonly string[];
  readonly forbid: readonly string[];
  readonly protect: readonly string[];
}

function firstMatch(globs: readonly string[], path: string): string | undefined {
  return globs.find((g) => {
    try {
      return compileGlobs([g]).matches(path);
    } catch {
      return false;
    }
  });
}

/**
 * One line for a scope violation: code, path and the RULE it broke (the
 * forbid or protect glob that matched, or the allow list it is outside of).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { violationDetail } from "./check_detail.ts";
 * const lists = { allow: ["src/**"], forbid: ["dist/**"], protect: ["test/**"] };
 * equal(
 *   violationDetail({ code: "forbidden", path: "dist/app.js", detail: "matches a forbidden glob" }, lists),
 *   'forbidden dist/app.js: matches a forbidden glob (rule: --forbid "dist/**")',
 * );
 * const defaults = { allow: [], forbid: ["**\/node_modules/**"], protect: [] };
 * equal(
 *   violationDetail({ code: "forbidden", path: "node_modules/.bin/mocha", detail: "matches a forbidden glob" }, defaults),
 *   'forbidden node_modules/.bin/mocha: matches a forbidden glob (rule: default --forbid "**\/node_modules/**": ' +
 *     "installed dependencies (node_modules/): a patch never carries them; a fake runner or library there would judge the patch)",
 * );
 * ```
 */
export function violationDetail(
  v: { readonly code: string; readonly path: string; readonly detail: string },
  lists: ScopeLists,
): string {
  const head = `${v.code}${v.path === "" ? "" : ` ${v.path}`}: ${v.detail}`;
  const rule = violationRule(v, lists);
  return rule === null ? head : `${head} (${rule})`;
}

/**
 * The rule a scope violation broke, in words (`rule: --forbid ".github/**"`, a default glob with
 * its reason, the allow list), or `null` when no list names it.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { violationRule } from "./check_detail.ts";
 * const lists = { allow: ["src/**"], forbid: [], protect: [] };
 * equal(violationRule({ code: "outside_allowed", path: "x.js" }, lists), 'rule: --allow "src/**"');
 * equal(violationRule({ code: "dot_git", path: ".git/config" }, lists), null);
 * ```
 */
export function violationRule(
  v: { readonly code: string; readonly path: string },
  lists: ScopeLists,
): string | null {
  if (v.path === "") return null;
  if (v.code === "forbidden") {
    const glob = firstMatch(lists.forbid, v.path) ?? firstMatch(lists.protect, v.path);
    if (glob === undefined) return null;
    const flag = lists.forbid.includes(glob) ? "--forbid" : "contract protect";
    const why = flag === "--forbid" ? defaultForbidReason(glob) : null;
    return why === null
      ? `rule: ${flag} ${JSON.stringify(glob)}`
      : `rule: default --forbid ${JSON.stringify(glob)}: ${why}`;
  }
  if (v.code === "outside_allowed" && lists.allow.length > 0) {
    return `rule: --allow ${lists.allow.map((g) => JSON.stringify(g)).join(", ")}`;
  }
  return null;
}
