/**
 * Whether a `--verify` command can start at all, asked before the baseline
 * and before any tree is made or dependency copied: its first word, when it
 * is a plain name, must be a shell builtin or an executable on `PATH` (looked
 * up in this process: nothing is run); when
 * it is an absolute path, an executable file must be there. Anything it cannot
 * read for sure (variables, quotes, relative paths resolved in the tree,
 * `VAR=x cmd`) is left to the sandboxed check itself.
 *
 * @module
 */
import { stat } from "node:fs/promises";
import process from "node:process";

const PLAIN = /^[A-Za-z0-9_.+-]+$/;
const ABSOLUTE = /^\/[A-Za-z0-9_.@+/-]*$/;

/** The command's first word when it can be judged as written, else null. */
function firstWord(command: string): string | null {
  const word = /^\s*([^\s;&|()<>]+)/.exec(command)?.[1];
  if (word === undefined || word.includes("=")) return null;
  return PLAIN.test(word) || ABSOLUTE.test(word) ? word : null;
}

/**
 * Why `command` cannot start, as one sentence, or null when it may.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { verifyCommandCannotStart } from "./preflight.ts";
 * equal(await verifyCommandCannotStart("nosuchcmd-vouch --watch"), "nosuchcmd-vouch: not found on PATH");
 * equal(await verifyCommandCannotStart("/nonexistent/bin/mocha"), "/nonexistent/bin/mocha: no such file");
 * equal(await verifyCommandCannotStart("sh -c 'exit 1'"), null);
 * equal(await verifyCommandCannotStart("cd sub && make test"), null); // a builtin
 * equal(await verifyCommandCannotStart("$RUNNER test"), null); // not judged
 * ```
 */
export async function verifyCommandCannotStart(command: string): Promise<string | null> {
  const word = firstWord(command);
  if (word === null) return null;
  if (word.startsWith("/")) {
    const info = await stat(word).catch(() => null);
    if (info === null) return `${word}: no such file`;
    if (info.isDirectory()) return `${word}: is a directory`;
    // The mode bits, not access(X_OK): Deno's node:fs access asks for the uid, which the
    // CLI's flags refuse.
    return (info.mode & 0o111) !== 0 ? null : `${word}: not executable`;
  }
  if (word.includes("/")) return null;
  if (SHELL_WORDS.has(word)) return null;
  for (const dir of searchPath()) {
    const path = `${dir}/${word}`;
    const info = await stat(path).catch(() => null);
    if (info === null || info.isDirectory()) continue;
    if ((info.mode & 0o111) !== 0) return null;
  }
  return `${word}: not found on PATH`;
}

/** POSIX `sh` keywords and builtins (dash, bash): never looked up on PATH. */
const SHELL_WORDS = new Set(
  ("! { } case do done elif else esac fi for if in then until while . : [ alias bg break cd " +
    "command continue echo eval exec exit export false fc fg getopts hash jobs kill local " +
    "printf pwd read readonly return set shift test times trap true type ulimit umask " +
    "unalias unset wait source time").split(" "),
);

/** The directories of `PATH` (the checks' PATH is built from it), absolute ones only. */
function searchPath(): string[] {
  let path: string | undefined;
  try {
    path = process.env["PATH"];
  } catch {
    path = undefined;
  }
  return (path ?? "/usr/local/bin:/usr/bin:/bin").split(":").filter((d) => d.startsWith("/"));
}
