import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import type { CheckRun, TestFormat } from "../../kernel/contract/types.ts";
import { stripJsonComments } from "../../kernel/text/jsonc.ts";

/** Where a verify command came from. */
export type VerifySource =
  | "explicit"
  | "deno.json"
  | "package.json"
  | "pytest"
  | "Cargo.toml"
  | "go.mod"
  | "Makefile";

/** A repository's verify command. */
export interface VerifyCommand {
  /** How to run it. */
  readonly run: CheckRun;
  /** Where it came from. */
  readonly source: VerifySource;
  /** The failing-test parser that fits its output, when known. */
  readonly tests: TestFormat | null;
}

/** Options for {@linkcode detectVerifyCommand}. */
export interface DetectOptions {
  /** An explicit command (`--verify`): always wins. A string runs as `sh -c`. */
  readonly explicit?: string | readonly string[];
  /** The deno executable to use for deno tasks (default: this one under Deno, `deno` under Node). */
  readonly denoExecutable?: string;
}

const MAX_FILE_BYTES = 1024 * 1024;
const NPM_PLACEHOLDER = /no test specified/;

/** The running deno under Deno; under Node, `deno` looked up on PATH. */
function denoExecutable(): string {
  return (process.versions as { deno?: string }).deno !== undefined ? process.execPath : "deno";
}

function readSmall(path: string): string | null {
  try {
    const info = statSync(path);
    if (!info.isFile() || info.size > MAX_FILE_BYTES) return null;
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

function parseJsonObject(text: string | null, comments: boolean): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const v: unknown = JSON.parse(comments ? stripJsonComments(text) : text);
    return typeof v === "object" && v !== null && !Array.isArray(v)
      ? v as Record<string, unknown>
      : null;
  } catch {
    return null;
  }
}

function stringAt(obj: Record<string, unknown> | null, key: string, sub: string): string | null {
  const inner = obj?.[key];
  if (typeof inner !== "object" || inner === null) return null;
  const v = (inner as Record<string, unknown>)[sub];
  if (typeof v === "string") return v;
  // deno.json tasks may be objects: { "command": "...", "description": "..." }.
  if (
    typeof v === "object" && v !== null && typeof (v as { command?: unknown }).command === "string"
  ) {
    return (v as { command: string }).command;
  }
  return null;
}

/**
 * Guesses the failing-test parser for a command line.
 *
 * @example
 * ```ts
 * import { guessTestFormat } from "./detect.ts";
 * if (guessTestFormat("npx vitest run") !== "vitest") throw new Error();
 * if (guessTestFormat("go test -json ./...") !== "go-json") throw new Error();
 * if (guessTestFormat("make check") !== null) throw new Error();
 * if (guessTestFormat("npm run lint && mocha --reporter dot") !== "mocha") throw new Error();
 * if (guessTestFormat("mocha --reporter tap test/") !== "tap") throw new Error();
 * ```
 */
export function guessTestFormat(command: string): TestFormat | null {
  if (/\bmocha\b.*(?:--reporter[= ]|-R ?)tap\b/.test(command)) return "tap";
  if (/\bmocha\b/.test(command)) return "mocha";
  if (/\b(?:tape|tap)\b(?![-\w])/.test(command) && !/\bnode\b.*--test\b/.test(command)) {
    return "tap";
  }
  if (/\bvitest\b/.test(command)) return "vitest";
  if (/\bjest\b/.test(command)) return "jest";
  if (/\bpytest\b/.test(command)) return "pytest";
  if (/\bdeno\b.*\btest\b/.test(command)) return "deno";
  if (/\bnode\b.*--test\b/.test(command)) return "node";
  if (/\bcargo\b.*\btest\b/.test(command)) return "cargo";
  if (/\bgo\s+test\b.*-json\b/.test(command)) return "go-json";
  if (/\bgo\s+test\b/.test(command)) return "go";
  return null;
}

function hasPytestConfig(root: string): boolean {
  for (const name of ["pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini"]) {
    if (readSmall(join(root, name)) !== null) return true;
  }
  if (readSmall(join(root, "conftest.py")) !== null) return true;
  if (/^\[tool\.pytest(?:\.ini_options)?\]/m.test(readSmall(join(root, "pyproject.toml")) ?? "")) {
    return true;
  }
  if (/^\[tool:pytest\]/m.test(readSmall(join(root, "setup.cfg")) ?? "")) return true;
  if (/^\[pytest\]/m.test(readSmall(join(root, "tox.ini")) ?? "")) return true;
  return false;
}

/**
 * Detects how to verify a repository, in order: the explicit command,
 * `deno.json(c)` `tasks.test`, `package.json` `scripts.test` (not npm's
 * placeholder), a pytest configuration, `Cargo.toml`, `go.mod`, a Makefile
 * `test` target. Returns `null` when nothing fits. Reads at most a few small
 * files; never runs anything.
 *
 * @example
 * ```ts
 * import { detectVerifyCommand } from "./detect.ts";
 * const v = detectVerifyCommand("/nonexistent", { explicit: "make check" });
 * if (v?.source !== "explicit" || !("shell" in v.run)) throw new Error();
 * ```
 */
export function detectVerifyCommand(
  root: string,
  options: DetectOptions = {},
): VerifyCommand | null {
  if (options.explicit !== undefined) {
    const run: CheckRun = typeof options.explicit === "string"
      ? { shell: options.explicit }
      : { argv: [...options.explicit] };
    const line = typeof options.explicit === "string"
      ? options.explicit
      : options.explicit.join(" ");
    return { run, source: "explicit", tests: guessTestFormat(line) };
  }
  for (const name of ["deno.json", "deno.jsonc"]) {
    const task = stringAt(parseJsonObject(readSmall(join(root, name)), true), "tasks", "test");
    if (task !== null) {
      const deno = options.denoExecutable ?? denoExecutable();
      return {
        run: { argv: [deno, "task", "test"] },
        source: "deno.json",
        tests: guessTestFormat(task) ?? (/\btest\b/.test(task) ? "deno" : null),
      };
    }
  }
  const script = stringAt(
    parseJsonObject(readSmall(join(root, "package.json")), false),
    "scripts",
    "test",
  );
  if (script !== null && !NPM_PLACEHOLDER.test(script)) {
    return {
      run: { argv: ["npm", "test", "--silent"] },
      source: "package.json",
      tests: guessTestFormat(script),
    };
  }
  if (hasPytestConfig(root)) {
    return {
      run: { argv: ["python3", "-m", "pytest", "-rfE"] },
      source: "pytest",
      tests: "pytest",
    };
  }
  if (readSmall(join(root, "Cargo.toml")) !== null) {
    return { run: { argv: ["cargo", "test"] }, source: "Cargo.toml", tests: "cargo" };
  }
  if (readSmall(join(root, "go.mod")) !== null) {
    return { run: { argv: ["go", "test", "./..."] }, source: "go.mod", tests: "go" };
  }
  for (const name of ["GNUmakefile", "makefile", "Makefile"]) {
    if (/^test\s*:/m.test(readSmall(join(root, name)) ?? "")) {
      return { run: { argv: ["make", "test"] }, source: "Makefile", tests: null };
    }
  }
  return null;
}

/**
 * The line `vouch run` prints for a detected verify command: what runs, where
 * it came from, which failing-test parser reads its output.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { describeVerifyCommand } from "./detect.ts";
 * equal(
 *   describeVerifyCommand({ run: { argv: ["npm", "test", "--silent"] }, source: "package.json", tests: "mocha" }),
 *   "verify: `npm test --silent` (detected from package.json; test output read as mocha)",
 * );
 * ```
 */
export function describeVerifyCommand(v: VerifyCommand): string {
  const text = "shell" in v.run ? v.run.shell : v.run.argv.join(" ");
  const from = v.source === "explicit" ? "given with --verify" : `detected from ${v.source}`;
  return `verify: \`${text}\` (${from}${
    v.tests !== null ? `; test output read as ${v.tests}` : ""
  })`;
}
