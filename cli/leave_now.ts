/**
 * Leaving at once (a second Ctrl-C in `run`, Ctrl-C in `verify`) without
 * leaving the repository locked: the log's writer lock is released and the
 * trees this process still has are handed to a detached removal, then the
 * process exits 130 (cancelled).
 *
 * @module
 */
import process from "node:process";
import { releaseHeldWriterLocks } from "../adapters/log/lock.ts";
import { scheduleLiveTreeRemoval } from "../adapters/worktree/live_trees.ts";
import { VERDICTS } from "../adapters/driver/verdicts.ts";
import type { CliIo } from "./command.ts";

/** The line said when leaving at once. */
export function leaveNowNote(locks: number, trees: number): string {
  const what = [
    locks > 0 ? "the log's lock released" : "",
    trees > 0 ? `${trees} tree${trees === 1 ? "" : "s"} being removed in the background` : "",
  ].filter((x) => x !== "").join("; ");
  return `vouch: ${VERDICTS.killed.word.toLowerCase()}, leaving now${
    what === "" ? "" : `: ${what}`
  }\n`;
}

/** Releases the lock, schedules the trees' removal, says so, exits 130. */
export function leaveNow(io: CliIo): never {
  const locks = releaseHeldWriterLocks();
  const trees = scheduleLiveTreeRemoval();
  io.err(leaveNowNote(locks, trees));
  process.exit(VERDICTS.killed.exitCode);
}
