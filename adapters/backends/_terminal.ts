/**
 * ACP terminals as Zed runs them: the command line through the shell
 * (`sh -c`, arguments appended shell-quoted), the request's `env` exported
 * first, stderr merged into the output, the output bounded in bytes (the
 * oldest cut, at a character boundary), and the exit reported as an exit code
 * or a signal. A small wrapper on vouch's own runtime, inside the agent's
 * sandbox, tells the two apart (bwrap and `sh` both turn a signal into
 * 128+n); without a runtime the shell's status is reported as an exit code.
 *
 * @module
 */
import { realpathSync } from "node:fs";
import { BWRAP_HOME, findOnPath } from "../sandbox/bwrap.ts";
import type { SandboxProfile } from "../sandbox/profile.ts";
import { evalArgv, helperRuntime } from "./_helper_runtime.ts";

/** Variables one terminal request may set. */
export const MAX_TERMINAL_ENV = 128;
const MAX_ENV_VALUE = 32 * 1024;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const EXIT_MARK = "VOUCH_TERMINAL_EXIT ";

/** Spawns the shell script (last argument), reports its status on stderr, exits with it. */
const WRAPPER_SOURCE = `
import { spawn } from "node:child_process";
import fs from "node:fs";
import process from "node:process";
const child = spawn("/bin/sh", ["-c", process.argv.at(-1)], { stdio: ["ignore", "inherit", "inherit"] });
child.on("error", (e) => { fs.writeSync(2, "\\n${EXIT_MARK}" + JSON.stringify({ code: 127, signal: null, error: String(e.message) }) + "\\n"); process.exit(127); });
child.on("exit", (code, signal) => {
  fs.writeSync(2, "\\n${EXIT_MARK}" + JSON.stringify({ code, signal }) + "\\n");
  process.exit(code ?? 128);
});
`;

/**
 * A word for `sh`: as is when it is plainly safe, else single-quoted.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { shellQuote } from "./_terminal.ts";
 * equal(shellQuote("test/calc.test.js"), "test/calc.test.js");
 * equal(shellQuote("it's"), `'it'\\''s'`);
 * ```
 */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_\/.,:=+@%-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The shell line of a `terminal/create` request (`command`, then `args` quoted). */
export function terminalLine(command: string, args: readonly string[]): string {
  return args.length === 0 ? command : [command, ...args.map(shellQuote)].join(" ");
}

/**
 * The script the shell runs: the variables exported, stderr into stdout, the
 * line; or a reason the request's `env` is refused.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { terminalScript } from "./_terminal.ts";
 * equal(terminalScript("make", [{ name: "A", value: "b c" }]), "export A='b c'\nexec 2>&1\nmake");
 * equal(typeof terminalScript("x", [{ name: "A=B", value: "" }]), "object");
 * ```
 */
export function terminalScript(
  line: string,
  env: readonly { readonly name: string; readonly value: string }[],
): string | { readonly refused: string } {
  if (env.length > MAX_TERMINAL_ENV) {
    return { refused: `at most ${MAX_TERMINAL_ENV} environment variables` };
  }
  const exports: string[] = [];
  for (const { name, value } of env) {
    if (!ENV_NAME.test(name)) {
      return { refused: `bad environment variable name ${name.slice(0, 80)}` };
    }
    if (value.length > MAX_ENV_VALUE || value.includes("\0")) {
      return { refused: `environment variable ${name} is too long or has a NUL` };
    }
    exports.push(`export ${name}=${shellQuote(value)}`);
  }
  return [...exports, "exec 2>&1", line].join("\n");
}

/**
 * The runtime the exit wrapper runs on inside `sandbox`: vouch's own, else a
 * `node`/`deno` on PATH, skipping one that lives under the HOME the agent's
 * state copy is bound over (it is not visible there); null when none is.
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { terminalRuntime } from "./_terminal.ts";
 * ok(terminalRuntime({ kind: "none" }) !== null);
 * ```
 */
export function terminalRuntime(sandbox: SandboxProfile): string | null {
  const hidden = sandbox.kind === "bwrap" && sandbox.homeSource !== undefined
    ? sandbox.home ?? BWRAP_HOME
    : null;
  for (const candidate of [helperRuntime(), findOnPath("node"), findOnPath("deno")]) {
    if (candidate === null || evalArgv(candidate, "") === null) continue;
    let real: string;
    try {
      real = realpathSync(candidate);
    } catch {
      continue;
    }
    if (hidden !== null && (real === hidden || real.startsWith(hidden + "/"))) continue;
    return candidate;
  }
  return null;
}

/** The argv that runs `script` (with the exit wrapper when a runtime is at hand). */
export function terminalArgv(script: string, runtime: string | null): string[] {
  const wrapped = runtime === null ? null : evalArgv(runtime, WRAPPER_SOURCE, [script]);
  return wrapped ?? ["/bin/sh", "-c", script];
}

/** How a terminal's command ended (ACP `TerminalExitStatus`). */
export interface TerminalExit {
  readonly exitCode: number | null;
  readonly signal: string | null;
}

/**
 * The wrapper's exit record in `stderr` (the last one), if any.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { exitRecord } from "./_terminal.ts";
 * deepEqual(exitRecord('\nVOUCH_TERMINAL_EXIT {"code":null,"signal":"SIGSEGV"}\n'), { exitCode: null, signal: "SIGSEGV" });
 * ```
 */
export function exitRecord(stderr: string): TerminalExit | null {
  const at = stderr.lastIndexOf(EXIT_MARK);
  if (at < 0) return null;
  try {
    const r = JSON.parse(stderr.slice(at + EXIT_MARK.length).split("\n")[0]!) as {
      code?: unknown;
      signal?: unknown;
    };
    const exitCode = typeof r.code === "number" && Number.isInteger(r.code) ? r.code : null;
    const signal = typeof r.signal === "string" && /^SIG[A-Z0-9]+$/.test(r.signal)
      ? r.signal
      : null;
    return exitCode === null && signal === null ? null : { exitCode, signal };
  } catch {
    return null;
  }
}

/**
 * The last `limit` bytes of a stream, cut at a character boundary
 * (`outputByteLimit`: the oldest output goes first).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { TailBytes } from "./_terminal.ts";
 * const t = new TailBytes(4);
 * t.push(new TextEncoder().encode("abcdé"));
 * equal(t.text(), "cdé");
 * equal(t.truncated, true);
 * ```
 */
export class TailBytes {
  readonly #limit: number;
  #buf: Uint8Array = new Uint8Array(0);
  /** Whether output was cut. */
  truncated = false;

  constructor(limit: number) {
    this.#limit = Math.max(0, limit);
  }

  /** Appends a chunk, keeping only the last `limit` bytes. */
  push(chunk: Uint8Array): void {
    const all = new Uint8Array(this.#buf.length + chunk.length);
    all.set(this.#buf);
    all.set(chunk, this.#buf.length);
    if (all.length > this.#limit) {
      this.truncated = true;
      this.#buf = all.slice(all.length - this.#limit);
    } else this.#buf = all;
  }

  /** The kept output as text, starting at a character boundary. */
  text(): string {
    let start = 0;
    if (this.truncated) {
      // Skip UTF-8 continuation bytes left by the cut.
      while (start < this.#buf.length && (this.#buf[start]! & 0xc0) === 0x80) start++;
    }
    return new TextDecoder().decode(this.#buf.subarray(start));
  }
}
