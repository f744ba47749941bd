/**
 * What vouch may add to a check so its runner also writes a structured
 * report, without changing what runs: environment variables the runner reads
 * (`NODE_OPTIONS`, `PYTEST_ADDOPTS`) or, for a command that runs vitest, jest or `deno test`
 * directly, reporter flags. Where that cannot be done safely the plan says
 * why, and the text parsers stay the only source.
 *
 * @module
 */
import { join } from "node:path";
import type { TestFormat } from "../../kernel/contract/types.ts";
import { MOCHA_HOOK_SOURCE, MOCHA_REPORT_ENV } from "./_mocha_hook.ts";

/** Which reader a report needs. */
export type ReportReader =
  | "junit-node"
  | "junit-pytest"
  | "junit-vitest"
  | "junit-deno"
  | "jest-json"
  | "mocha-hook";

/** How to get a structured report from one check. */
export interface ReportPlan {
  /** How to read the report file afterwards. */
  readonly reader: ReportReader;
  /** Where the runner writes it (inside `reportDir`). */
  readonly reportPath: string;
  /** Variables to set for the check (merged with the check's own values, which they include). */
  readonly env: Readonly<Record<string, string>>;
  /** The command to run instead (vitest: reporter flags appended), or `null`: unchanged. */
  readonly command: string | null;
  /** Files to write before the check runs (the mocha hook), absolute paths. */
  readonly files: readonly { readonly path: string; readonly content: string }[];
  /** What was added, in words (for evidence). */
  readonly note: string;
}

/** A plan, or why there is none. */
export type ReportPlanResult =
  | { readonly ok: true; readonly plan: ReportPlan }
  | { readonly ok: false; readonly reason: string };

/** What {@link structuredReportPlan} decides from. */
export interface ReportPlanInput {
  /** The check's command as one string (a shell string, or argv joined by spaces). */
  readonly command: string;
  /** The detected test format. */
  readonly format: TestFormat | null;
  /** An absolute directory the check may write and vouch reads afterwards. */
  readonly reportDir: string;
  /** The check's environment as it would be (its `NODE_OPTIONS`, `PYTEST_ADDOPTS` are kept). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Texts the command may take options from (`package.json`, `pytest.ini`,
   * `.mocharc.*`, ...): a reporter option found there means vouch adds nothing.
   */
  readonly configTexts?: readonly string[];
  /** Major version of the node the check runs (default 20): picks the default reporter to keep. */
  readonly nodeMajor?: number;
  /**
   * The command of a `deno task NAME` check's task, as the BASE defines it and
   * only when it is one simple `deno test ...` command (`denoTaskFor`), or
   * null: then a `deno task` check gets no plan.
   * @default no task is known
   */
  readonly denoTask?: (name: string) => string | null;
}

/** Quotes a value for `NODE_OPTIONS` (double quotes, backslash escapes) when it needs it. */
function nodeOptionValue(v: string): string {
  return /[\s"'\\]/.test(v) ? `"${v.replace(/["\\]/g, (c) => `\\${c}`)}"` : v;
}

/** Quotes a value for `PYTEST_ADDOPTS` (split with `shlex`). */
function shlexValue(v: string): string {
  return /^[\w@%+=:,./-]+$/.test(v) ? v : `'${v.replaceAll("'", `'"'"'`)}'`;
}

function joined(existing: string | undefined, added: string): string {
  return existing === undefined || existing.trim() === "" ? added : `${existing} ${added}`;
}

/**
 * The report plan of one check, by format:
 * - `node`: `NODE_OPTIONS` gains `--test-reporter=<default> --test-reporter-destination=stdout
 *   --test-reporter=junit --test-reporter-destination=<file>`, where `<default>` is the
 *   reporter node would use anyway on a pipe (`tap` before node 23, `spec` since), so stdout
 *   is unchanged; refused when the command, a config or `NODE_OPTIONS` already picks a
 *   reporter (node would refuse the mix or print twice);
 * - `pytest`: `PYTEST_ADDOPTS` gains `--junitxml=<file> -o junit_family=xunit1` (the
 *   family with `file`, for node ids); refused when a junit option is already set. pytest
 *   then prints one more line, `-- generated xml file: <file> --`, and nothing else changes;
 * - `mocha`: `NODE_OPTIONS` gains `--require <hook>` and `VOUCH_MOCHA_REPORT=<file>`: the
 *   hook listens to mocha's runner events (mocha 10 has one reporter at a time, so the
 *   user's stays); refused when something already sets `--require` through `NODE_OPTIONS`;
 * - `vitest`: only for one command that runs vitest directly and names no reporter:
 *   `--reporter=default --reporter=junit --outputFile.junit=<file>` appended;
 * - `deno`: only for one command that runs `deno test` directly (`deno test ...`, a quoted path
 *   to deno, `npx [-y] deno[@version] test ...`) and names no junit report:
 *   `--junit-path=<file>` inserted right after `test` (before any `--` script arguments); deno
 *   then also writes a JUnit report, and prints nothing more. Or one simple `deno task NAME
 *   [args]` whose task ({@linkcode ReportPlanInput.denoTask}, the base's) is one simple
 *   `deno test ...`: `--junit-path=<file>` inserted right after `NAME` (deno task appends the
 *   words after the name to the task's command, so they reach `deno test`);
 * - `jest`: only for one command that runs jest directly and asks for no JSON of its own:
 *   `--json --outputFile=<file>` appended (jest then writes its JSON to the file, not to
 *   stdout; its reporters, on stderr, stay as they were, with one more line naming the file);
 * - anything else: no plan (the text parser reads the output; `go test -json` is already
 *   machine output).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { structuredReportPlan } from "./plan.ts";
 * const r = structuredReportPlan({ command: "pytest -q", format: "pytest", reportDir: "/tmp/r" });
 * equal(r.ok && r.plan.env.PYTEST_ADDOPTS, "--junitxml=/tmp/r/vouch-junit.xml -o junit_family=xunit1");
 * const n = structuredReportPlan({ command: "node --test --test-reporter=dot", format: "node", reportDir: "/tmp/r" });
 * equal(n.ok, false);
 * ```
 */
export function structuredReportPlan(input: ReportPlanInput): ReportPlanResult {
  const env = input.env ?? {};
  const texts = [input.command, ...(input.configTexts ?? [])];
  const mentions = (re: RegExp) => texts.some((t) => re.test(t));
  const nodeOptions = env["NODE_OPTIONS"];
  switch (input.format) {
    case "node": {
      if (mentions(/--test-reporter/) || /--test-reporter/.test(nodeOptions ?? "")) {
        return { ok: false, reason: "the check already chooses a node --test reporter" };
      }
      const reportPath = join(input.reportDir, "vouch-junit.xml");
      const keep = (input.nodeMajor ?? 20) >= 23 ? "spec" : "tap";
      const added = `--test-reporter=${keep} --test-reporter-destination=stdout ` +
        `--test-reporter=junit --test-reporter-destination=${nodeOptionValue(reportPath)}`;
      return planned("junit-node", reportPath, {
        env: { NODE_OPTIONS: joined(nodeOptions, added) },
        note: `NODE_OPTIONS adds a junit reporter next to ${keep} on stdout`,
      });
    }
    case "pytest": {
      const addopts = env["PYTEST_ADDOPTS"];
      if (mentions(/--junit-?xml|no:junitxml/) || /--junit-?xml|no:junitxml/.test(addopts ?? "")) {
        return { ok: false, reason: "the check already configures pytest's junit report" };
      }
      const reportPath = join(input.reportDir, "vouch-junit.xml");
      const added = `--junitxml=${shlexValue(reportPath)} -o junit_family=xunit1`;
      return planned("junit-pytest", reportPath, {
        env: { PYTEST_ADDOPTS: joined(addopts, added) },
        note: "PYTEST_ADDOPTS adds --junitxml",
      });
    }
    case "mocha": {
      if (/(?:^|\s)(?:--require|-r)\b/.test(nodeOptions ?? "")) {
        return { ok: false, reason: "NODE_OPTIONS already loads a module with --require" };
      }
      const reportPath = join(input.reportDir, "vouch-mocha.jsonl");
      const hook = join(input.reportDir, "vouch-mocha-hook.cjs");
      return planned("mocha-hook", reportPath, {
        env: {
          NODE_OPTIONS: joined(nodeOptions, `--require ${nodeOptionValue(hook)}`),
          [MOCHA_REPORT_ENV]: reportPath,
        },
        files: [{ path: hook, content: MOCHA_HOOK_SOURCE }],
        note: "NODE_OPTIONS loads vouch's mocha hook (it listens to the runner's events)",
      });
    }
    case "vitest": {
      if (!runsDirectly(input.command, "vitest")) {
        return { ok: false, reason: "the check does not run vitest directly" };
      }
      if (/--reporter|--outputFile/.test(input.command)) {
        return { ok: false, reason: "the check already chooses a vitest reporter" };
      }
      const reportPath = join(input.reportDir, "vouch-junit.xml");
      return planned("junit-vitest", reportPath, {
        command: `${input.command.trim()} --reporter=default --reporter=junit ` +
          `--outputFile.junit=${shlexValue(reportPath)}`,
        note: "vitest gets a junit reporter next to its default one",
      });
    }
    case "deno": {
      const direct = denoTestEnd(input.command);
      const call = direct === null ? denoTaskCall(input.command) : null;
      const task = call === null ? null : input.denoTask?.(call.name) ?? null;
      const at = direct ?? (task !== null ? call!.end : null);
      if (at === null) {
        return {
          ok: false,
          reason: call === null
            ? "the check does not run deno test directly"
            : `task ${call.name} is not known to be one simple deno test command`,
        };
      }
      if (/--junit-path|--reporter[= ]+junit\b/.test(`${input.command}\n${task ?? ""}`)) {
        return { ok: false, reason: "the check already asks deno for a junit report" };
      }
      const reportPath = join(input.reportDir, "vouch-junit.xml");
      return planned("junit-deno", reportPath, {
        command: `${input.command.slice(0, at)} --junit-path=${shlexValue(reportPath)}` +
          input.command.slice(at),
        note: task === null
          ? "deno test writes a junit report (--junit-path) next to its own output"
          : `deno task ${call!.name} (${task}) writes a junit report (--junit-path) next to its ` +
            "own output",
      });
    }
    case "jest": {
      if (!runsDirectly(input.command, "jest")) {
        return { ok: false, reason: "the check does not run jest directly" };
      }
      if (/--json|--outputFile|--watch|--listTests|--showConfig/.test(input.command)) {
        return { ok: false, reason: "the check already asks jest for JSON (or runs no tests)" };
      }
      const reportPath = join(input.reportDir, "vouch-jest.json");
      return planned("jest-json", reportPath, {
        command: `${input.command.trim()} --json --outputFile=${shlexValue(reportPath)}`,
        note: "jest writes its --json report to a file (its reporters unchanged)",
      });
    }
    default:
      return {
        ok: false,
        reason: input.format === null
          ? "no test format detected"
          : `vouch adds no structured report for ${input.format}`,
      };
  }
}

/** A plan: what `change` leaves out is unchanged (no variables, the same command, no files). */
function planned(
  reader: ReportReader,
  reportPath: string,
  change: Partial<Pick<ReportPlan, "env" | "command" | "files">> & { readonly note: string },
): ReportPlanResult {
  return {
    ok: true,
    plan: {
      reader,
      reportPath,
      env: change.env ?? {},
      command: change.command ?? null,
      files: change.files ?? [],
      note: change.note,
    },
  };
}

/**
 * Whether `command` is one command (no shell operators) whose program, or the
 * program a package runner (`npx`, `pnpm`, `yarn`, `bunx`) starts, is `tool`.
 */
function runsDirectly(command: string, tool: string): boolean {
  if (/[;&|`$()<>]/.test(command)) return false;
  const words = command.trim().split(/\s+/);
  const direct = /^(?:npx|pnpm|yarn|bunx)$/.test(words[0] ?? "") ? words[1] : words[0];
  return (direct ?? "").split("/").pop() === tool;
}

/** One word of a shell command: its text (quotes removed) and where it ends in the command. */
interface ShellWord {
  readonly text: string;
  readonly end: number;
}

/**
 * The words of `command` when it is one simple command: plain characters and
 * `'...'` / `"..."` quoting only (globs stay as they are: the shell expands them
 * the same way with or without vouch's flag). `null` for anything that could
 * make the words other than they look (operators, expansions, escapes,
 * redirections, a newline, an unterminated quote): then vouch does not rewrite it.
 */
export function simpleShellWords(command: string): ShellWord[] | null {
  const words: ShellWord[] = [];
  let text: string | null = null;
  let i = 0;
  while (i < command.length) {
    const c = command[i]!;
    if (c === " " || c === "\t") {
      if (text !== null) words.push({ text, end: i });
      text = null;
      i++;
    } else if (c === "'" || c === '"') {
      const close = command.indexOf(c, i + 1);
      if (close < 0) return null;
      const inside = command.slice(i + 1, close);
      if (c === '"' && /[$`\\]/.test(inside)) return null;
      text = (text ?? "") + inside;
      i = close + 1;
    } else if (/[;&|`$()<>\\\n\r]/.test(c)) {
      return null;
    } else {
      text = (text ?? "") + c;
      i++;
    }
  }
  if (text !== null) words.push({ text, end: command.length });
  return words;
}

/**
 * Where the `test` word of a command that runs `deno test` directly ends in
 * it (`deno test -A`, `'/opt/deno' test`, `npx -y deno@2 test`), or `null`:
 * not one simple command, or not deno's test subcommand right after the program.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { denoTestEnd } from "./plan.ts";
 * equal(denoTestEnd("deno test -A"), 9);
 * equal(denoTestEnd("npx -y deno@2.9.6 test"), 22);
 * equal(denoTestEnd("deno task test"), null);
 * equal(denoTestEnd("deno test && deno lint"), null);
 * ```
 */
export function denoTestEnd(command: string): number | null {
  const words = simpleShellWords(command);
  if (words === null) return null;
  const at = denoProgramEnd(words.map((w) => w.text));
  const sub = at === null ? undefined : words[at];
  return sub !== undefined && sub.text === "test" ? sub.end : null;
}

/** The index of the word after the deno program (`deno`, `/opt/deno`, `npx -y deno@2`), or null. */
function denoProgramEnd(words: readonly string[]): number | null {
  let i = 0;
  let viaRunner = false;
  if (/^(?:npx|bunx)$/.test(words[0] ?? "")) {
    viaRunner = true;
    i = 1;
    while (i < words.length && /^(?:-y|--yes)$/.test(words[i]!)) i++;
  }
  const program = words[i] ?? "";
  const isDeno = viaRunner
    ? /^deno(?:@[\w.^~-]+)?$/.test(program)
    : program !== "" && program.split("/").pop() === "deno";
  return isDeno ? i + 1 : null;
}

/** A `deno task NAME ...` check command: the task's name, and where vouch may add words. */
export interface DenoTaskCall {
  /** The task's name. */
  readonly name: string;
  /** Where the `NAME` word ends in the command (words inserted there reach the task first). */
  readonly end: number;
}

/**
 * The task a check command runs when it is one simple `deno task NAME [args]`
 * (`deno`, a path to it, `npx [-y] deno[@version]`; no flags between `task`
 * and `NAME`, a plain name without wildcards, no `--` or `#` word after it), or `null`.
 *
 * @example
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
 * import { denoTaskCall } from "./plan.ts";
 * deepEqual(denoTaskCall("deno task test"), { name: "test", end: 14 });
 * deepEqual(denoTaskCall("npx -y deno@2.9.6 task ci calc_test.ts"), { name: "ci", end: 25 });
 * equal(denoTaskCall("deno task --cwd sub test"), null);
 * equal(denoTaskCall("deno task test && deno lint"), null);
 * equal(denoTaskCall("deno task test -- --filter x"), null);
 * equal(denoTaskCall("deno test"), null);
 * ```
 */
export function denoTaskCall(command: string): DenoTaskCall | null {
  const words = simpleShellWords(command);
  if (words === null) return null;
  const at = denoProgramEnd(words.map((w) => w.text));
  if (at === null || words[at]?.text !== "task") return null;
  const name = words[at + 1];
  if (name === undefined || !/^\w[\w:.-]*$/.test(name.text)) return null;
  if (words.slice(at + 2).some((w) => w.text === "--" || w.text.startsWith("#"))) return null;
  return { name: name.text, end: name.end };
}
