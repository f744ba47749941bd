/**
 * Long-lived shells that run the after-child script (`_kernel_limits.ts`: a
 * sandboxed child's cgroup events and its tree's changed files) for this
 * process, so a check costs no process start of its own for it: vouch's
 * Deno flags refuse it `/sys` and `/proc`, and a shell started per check was
 * one fork and exec more than bare bwrap (plus a synchronous spawn from a
 * large process). A shell reads one request at a time on stdin (a sequence
 * number, the argument count, one argument per line), runs the script as a
 * function with them and prints its output and `vouch-after-end <seq>`; it
 * leads its own session (a Ctrl-C to vouch's terminal does not reach it) and
 * ends when vouch closes its stdin or exits. Idle
 * shells are kept (never more than were busy at once) and never keep this
 * process alive; one that fails, dies, overflows or times out is killed, and
 * the caller falls back to a one-shot shell. After {@linkcode MAX_FAILURES}
 * failures the fallback is all there is.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { Buffer } from "node:buffer";

/** What one request printed, or how it was cut short. */
export interface AfterShellAnswer {
  readonly out: string;
  /** Timed out or past the output bound: not a measurement. */
  readonly cutShort: boolean;
}

const MAX_FAILURES = 3;
const TIMEOUT_MS = 60_000;
const MAX_OUTPUT = 64 * 1024 * 1024;

interface Shell {
  /** Sends `text`, resolves with the output up to `end` (null when the shell failed). */
  ask(text: string, end: string): Promise<AfterShellAnswer | null>;
  kill(): void;
}

type DenoChild = {
  stdin: WritableStream<Uint8Array>;
  stdout: ReadableStream<Uint8Array>;
  unref(): void;
  kill(signal: string): void;
};
type DenoCommand = new (program: string, options: Record<string, unknown>) => {
  spawn(): DenoChild;
};
const DenoCommandCtor = (globalThis as { Deno?: { Command?: DenoCommand } }).Deno?.Command;

const ENV = { PATH: "/usr/bin:/bin" };

// The request loop around the script (a function, so `shift` and `$@` are its own).
const loop = (script: string) =>
  `vouch_after() {
${script}
}
while IFS= read -r vouch_seq && IFS= read -r vouch_n; do
  set --
  while [ "$vouch_n" -gt 0 ]; do IFS= read -r vouch_a || exit 0; set -- "$@" "$vouch_a"; vouch_n=$((vouch_n - 1)); done
  vouch_after "$@"
  echo "vouch-after-end $vouch_seq"
done`;

/** Collects stdout text until the end line; bounded. */
class Collector {
  text = "";
  size = 0;
  constructor(readonly end: string) {}
  /** true when complete; throws past the bound. */
  push(chunk: string): boolean {
    this.size += chunk.length;
    if (this.size > MAX_OUTPUT) throw new Error("after-child output past its bound");
    this.text += chunk;
    return this.text.endsWith(this.end);
  }
}

function denoShell(Command: DenoCommand, sh: string, script: string): Shell {
  const child = new Command(sh, {
    args: ["-c", loop(script), "vouch-after-shell"],
    env: ENV,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
    // Its own session: a Ctrl-C to vouch's terminal group does not end it mid-request.
    detached: true,
  }).spawn();
  child.unref();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  return {
    async ask(text, end) {
      await writer.write(new TextEncoder().encode(text));
      const got = new Collector(end);
      // Read only while asking: between requests nothing here keeps the process alive.
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return null;
        if (got.push(decoder.decode(value, { stream: true }))) {
          return { out: got.text, cutShort: false };
        }
      }
    },
    kill: () => {
      try {
        child.kill("SIGKILL");
      } catch { /* gone */ }
    },
  };
}

function nodeShell(sh: string, script: string): Shell {
  const child = spawn(sh, ["-c", loop(script), "vouch-after-shell"], {
    env: ENV,
    stdio: ["pipe", "pipe", "ignore"],
    detached: true,
  });
  child.on("error", () => {});
  child.stdin!.on("error", () => {});
  const stdout = child.stdout! as typeof child.stdout & { ref?(): void; unref?(): void };
  const stdin = child.stdin! as typeof child.stdin & { unref?(): void };
  child.unref();
  stdin.unref?.();
  stdout.unref?.();
  stdout.setEncoding("utf8");
  let waiting: { got: Collector; resolve: (a: AfterShellAnswer | null) => void } | null = null;
  const finish = (a: AfterShellAnswer | null) => {
    const w = waiting;
    waiting = null;
    stdout.unref?.();
    w?.resolve(a);
  };
  stdout.on("data", (chunk: string) => {
    if (waiting === null) return;
    try {
      if (waiting.got.push(chunk)) finish({ out: waiting.got.text, cutShort: false });
    } catch {
      finish(null);
    }
  });
  stdout.on("close", () => finish(null));
  child.on("exit", () => finish(null));
  return {
    ask(text, end) {
      return new Promise((resolve) => {
        waiting = { got: new Collector(end), resolve };
        stdout.ref?.();
        stdin.write(Buffer.from(text));
      });
    },
    kill: () => void child.kill("SIGKILL"),
  };
}

/** Idle shells by the script they run. */
const idle = new Map<string, Shell[]>();
let failures = 0;
let seq = 0;

/**
 * Runs the after-child `script` with `args` in an idle shell (or a new one);
 * null when no shell could answer (the caller runs the one-shot fallback).
 * An argument with a line break is never sent (null).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { afterShellRun } from "./_after_shell.ts";
 * const a = await afterShellRun("/bin/sh", 'echo "got $1 $#"', ["x y", "z"]);
 * equal(a?.out.split("\n")[0], "got x y 2");
 * ```
 */
export async function afterShellRun(
  sh: string,
  script: string,
  args: readonly string[],
): Promise<AfterShellAnswer | null> {
  if (failures >= MAX_FAILURES || args.some((a) => /[\n\r\0]/.test(a))) return null;
  const free = idle.get(script) ?? [];
  idle.set(script, free);
  let shell = free.pop();
  if (shell === undefined) {
    try {
      shell = DenoCommandCtor !== undefined
        ? denoShell(DenoCommandCtor, sh, script)
        : nodeShell(sh, script);
    } catch {
      failures++;
      return null;
    }
  }
  const n = ++seq;
  const end = `vouch-after-end ${n}\n`;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((
    r,
  ) => (timer = setTimeout(() => r("timeout"), TIMEOUT_MS)));
  let answer: AfterShellAnswer | null | "timeout";
  try {
    answer = await Promise.race([
      shell.ask(`${n}\n${args.length}\n${args.map((a) => a + "\n").join("")}`, end),
      timeout,
    ]);
  } catch {
    answer = null;
  } finally {
    clearTimeout(timer);
  }
  if (answer === null || answer === "timeout") {
    shell.kill();
    failures++;
    // A listing that did not finish in time is no measurement; the fallback would only repeat it.
    return answer === "timeout" ? { out: "", cutShort: true } : null;
  }
  free.push(shell);
  return { out: answer.out.slice(0, -end.length), cutShort: false };
}
