/**
 * One exit-code table: `EXIT_CODES` in cli/command.ts. README.md's table, its
 * per-command column, every `--help` and the driver's final-state codes must
 * say the same; `describeFailure` maps escaping errors onto it.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type CliIo, EXIT, EXIT_CODES, renderExitCodes } from "../../cli/command.ts";
import { loadCommands } from "../../cli/commands/mod.ts";
import { describeFailure } from "../../cli/failure.ts";
import { runCli } from "../../cli/main.ts";
import { RUN_EXIT_CODES } from "../../adapters/driver/outcome.ts";
import {
  renderVerdictLine,
  VERDICT_ROWS,
  VERDICTS,
  verdictTableMarkdown,
} from "../../adapters/driver/verdicts.ts";
import { FINAL_STATES } from "../../kernel/lifecycle/outcome.ts";
import { BackendError } from "../../adapters/backends/errors.ts";
import { KeyError } from "../../adapters/keys/errors.ts";
import { EventLogError } from "../../adapters/log/errors.ts";
import { SandboxError } from "../../adapters/sandbox/profile.ts";
import { GlobError } from "../../kernel/glob/error.ts";
import { DiffParseError } from "../../kernel/diff/error.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");
const README = await Deno.readTextFile(join(ROOT, "README.md"));
const COMMANDS = await loadCommands();

/** The cells of the Markdown table rows between two markers (header and rule skipped). */
function tableRows(text: string, begin: string, end: string): string[][] {
  const from = text.indexOf(begin);
  const to = text.indexOf(end, from);
  assert.ok(from >= 0 && to > from, `markers ${begin} … ${end} not found`);
  return text.slice(from, to).split("\n")
    .filter((l) => l.startsWith("|"))
    .slice(2)
    .map((l) => l.split("|").slice(1, -1).map((c) => c.trim()));
}

Deno.test("EXIT_CODES lists every EXIT code once, and the codes are distinct", () => {
  const values = Object.values(EXIT);
  assert.equal(new Set(values).size, values.length);
  assert.deepEqual(
    EXIT_CODES.map((r) => r.code).sort((a, b) => a - b),
    [...values].sort((a, b) => a - b),
  );
  assert.deepEqual(EXIT, {
    ok: 0,
    rejected: 1,
    usage: 2,
    budget: 3,
    backendFailed: 4,
    couldNotRun: 5,
    internal: 70,
    killed: 130,
  });
});

Deno.test("README's exit-code table is EXIT_CODES", () => {
  const rows = tableRows(README, "<!-- exit-codes:begin -->", "<!-- exit-codes:end -->");
  assert.deepEqual(rows, EXIT_CODES.map((r) => [`\`${r.code}\``, r.label, r.meaning]));
});

Deno.test("README's per-command exit column is each command's own exits", () => {
  const rows = tableRows(README, "<!-- usage:begin -->", "```sh");
  const byName = new Map(rows.map((r) => [r[0]!.replace(/^`vouch (\w+)`$/, "$1"), r[2]]));
  for (const command of COMMANDS) {
    const own = Object.entries(command.exits).map(([code, words]) => `${code} ${words}`);
    assert.equal(byName.get(command.name), own.join(", "), `README row for ${command.name}`);
  }
  assert.equal(byName.size, COMMANDS.length, "a README row per command, no more");
});

Deno.test("every --help ends with the rendered exit codes and states them nowhere else", async () => {
  for (const command of COMMANDS) {
    assert.doesNotMatch(command.help, /exit codes?:|\bexit [0-9]+ (verified|rejected|usage)/i);
    let out = "";
    const io: CliIo = { out: (t) => void (out += t), err: () => {}, isTerminal: false };
    assert.equal(await runCli([command.name, "--help"], io), EXIT.ok);
    assert.ok(out.endsWith(renderExitCodes(command.exits)), `${command.name} --help`);
    for (const code of Object.keys(command.exits).map(Number)) {
      assert.ok([0, 1, 3, 4].includes(code), `${command.name} claims shared code ${code}`);
    }
  }
  let top = "";
  const io: CliIo = { out: (t) => void (top += t), err: () => {}, isTerminal: false };
  await runCli(["--help"], io);
  for (const r of EXIT_CODES) assert.match(top, new RegExp(`^\\s+${r.code}  ${r.label}$`, "m"));
});

Deno.test("the run driver's final-state exit codes are the table's", () => {
  const named: Record<string, number> = {
    verified: EXIT.ok,
    rejected: EXIT.rejected,
    budget_exhausted: EXIT.budget,
    backend_failed: EXIT.backendFailed,
    could_not_run: EXIT.couldNotRun,
    killed: EXIT.killed,
  };
  const table = new Set<number>(EXIT_CODES.map((r) => r.code));
  for (const [state, code] of Object.entries(RUN_EXIT_CODES)) {
    assert.ok(table.has(code), `${state} exits ${code}, which is not in EXIT_CODES`);
    if (state in named) assert.equal(code, named[state], state);
  }
  for (const state of ["verified", "rejected", "budget_exhausted", "backend_failed", "killed"]) {
    assert.ok(state in RUN_EXIT_CODES, state);
  }
});

Deno.test("describeFailure: each kind of escaping error gets its code and one line", () => {
  const cases: [unknown, number, RegExp][] = [
    [new EventLogError("locked", "Cannot open log: held"), EXIT.couldNotRun, /\(locked\)$/],
    [new KeyError("corrupt", "Cannot load key"), EXIT.couldNotRun, /\(corrupt\)$/],
    [new SandboxError("sandbox_unavailable", "no bwrap"), EXIT.couldNotRun, /unavailable\)$/],
    [new BackendError("spawn_failed", "Cannot start codex"), EXIT.backendFailed, /failed\)$/],
    [new GlobError("unclosed_class", "[a", "no ]"), EXIT.usage, /\(unclosed_class\)$/],
    [new DiffParseError("truncated", 3, "ends in a hunk"), EXIT.rejected, /hunk \(truncated\)$/],
    [new Deno.errors.NotADirectory("Not a directory: mkdir x"), EXIT.couldNotRun, /could not run/],
    [new TypeError("x is undefined"), EXIT.internal, /internal error \(a bug in vouch\)/],
    ["a string", EXIT.internal, /internal error/],
  ];
  for (const [error, code, line] of cases) {
    const failure = describeFailure("verify", error);
    assert.equal(failure.exitCode, code, String(error));
    assert.equal(failure.text.split("\n").length, 2, `one line for ${String(error)}`);
    assert.ok(failure.text.startsWith("vouch verify: "));
    assert.match(failure.text.trimEnd(), line);
  }
  const multi = describeFailure("gc", new EventLogError("io", "first\nsecond"));
  assert.equal(multi.text, "vouch gc: first | second (io)\n");
  const parse = Object.assign(new TypeError("Unknown option '--nope'"), {
    code: "ERR_PARSE_ARGS_UNKNOWN_OPTION",
  });
  assert.equal(describeFailure("scope", parse).exitCode, EXIT.usage);
});

Deno.test("describeFailure prints a stack trace only when debugging", () => {
  const bug = new TypeError("boom");
  assert.doesNotMatch(describeFailure("run", bug).text, /^\s+at /m);
  assert.match(describeFailure("run", bug).text, /VOUCH_DEBUG=1/);
  assert.match(describeFailure("run", bug, true).text, /^\s+at /m);
  const refused = new KeyError("corrupt", "Cannot load key");
  assert.doesNotMatch(describeFailure("run", refused).text, /^\s+at /m);
  assert.match(describeFailure("run", refused, true).text, /^\s+at /m);
});

Deno.test("README's verdict table is VERDICTS, and every row's exit code is in EXIT_CODES", () => {
  const rows = tableRows(README, "<!-- verdicts:begin -->", "<!-- verdicts:end -->");
  assert.deepEqual(
    rows,
    VERDICT_ROWS.map((r) => [`\`${r.key}\``, r.word, `\`${r.exitCode}\``, r.label, r.meaning]),
  );
  assert.ok(verdictTableMarkdown().split("\n").length === VERDICT_ROWS.length + 3);
  const table = new Map(EXIT_CODES.map((r) => [r.code as number, r.label]));
  for (const r of VERDICT_ROWS) assert.ok(table.has(r.exitCode), `${r.key} exits ${r.exitCode}`);
  // The final states' words are the exit-code table's labels for their codes (one vocabulary).
  for (const s of FINAL_STATES) {
    assert.equal(table.get(VERDICTS[s].exitCode), VERDICTS[s].label, s);
    assert.equal(RUN_EXIT_CODES[s], VERDICTS[s].exitCode, s);
  }
  assert.deepEqual(VERDICT_ROWS.map((r) => r.key), [...FINAL_STATES, "tampered", "not_a_log"]);
});

Deno.test("every --help lists its verdicts in the table's words; vouch --help lists them all", async () => {
  for (const command of COMMANDS) {
    let out = "";
    const io: CliIo = { out: (t) => void (out += t), err: () => {}, isTerminal: false };
    assert.equal(await runCli([command.name, "--help"], io), EXIT.ok);
    if (command.verdicts.length > 0) {
      assert.ok(
        out.endsWith(renderVerdictLine(command.verdicts) + renderExitCodes(command.exits)),
        `${command.name} --help`,
      );
    }
    for (const v of command.verdicts) {
      const own = (command.exits as Record<number, string>)[VERDICTS[v].exitCode];
      const shared = EXIT_CODES.find((r) => r.shared && r.code === VERDICTS[v].exitCode);
      assert.ok(own !== undefined || shared !== undefined, `${command.name}: ${v}'s exit code`);
    }
  }
  for (const name of ["run", "verify", "inspect"]) {
    assert.ok(COMMANDS.find((c) => c.name === name)!.verdicts.length > 0, name);
  }
  let top = "";
  const io: CliIo = { out: (t) => void (top += t), err: () => {}, isTerminal: false };
  await runCli(["--help"], io);
  for (const r of VERDICT_ROWS) {
    assert.match(top, new RegExp(`^  ${r.word} +${r.exitCode}  `, "m"), r.key);
  }
});
