/**
 * One file helper process (`_file_helper_source.ts`) of a file service:
 * started with a deno or node runtime inside the agent's sandbox (network
 * cut), in the worktree; it answers one JSON line per request. An answer out
 * of bounds, malformed, or to a request it was not asked ends it, and so
 * does its exit; every request it still owed then fails closed
 * (`unavailable`).
 *
 * @module
 */
import type { Writable } from "node:stream";
import { z } from "zod";
import { runProcess } from "../process/run.ts";
import type { ProcessResult } from "../process/types.ts";
import type { SandboxProfile } from "../sandbox/profile.ts";
import { FILE_HELPER_SOURCE } from "./_file_helper_source.ts";
import { evalArgv, helperRuntime, helperSandbox } from "./_helper_runtime.ts";
import { LineSplitter } from "./line_splitter.ts";

/** Largest read the service asks for (bytes). */
export const MAX_FILE_BYTES = 8 * 1024 * 1024;
// base64 of the largest read plus the envelope.
const MAX_ANSWER_LINE = Math.ceil(MAX_FILE_BYTES / 3) * 4 + 64 * 1024;

/** One answer line of the helper. */
const Answer = z.lazy(() =>
  z.union([
    z.object({
      id: z.number().int(),
      ok: z.literal(true),
      data: z.string().optional(),
      bytes: z.number().int().nonnegative().optional(),
      total: z.number().int().nonnegative().optional(),
      entries: z.array(z.tuple([z.string().max(1024), z.boolean()])).max(100_000).optional(),
    }),
    z.object({
      id: z.number().int().nullable(),
      ok: z.literal(false),
      code: z.enum([
        "bad_request",
        "not_found",
        "symlink",
        "not_dir",
        "not_regular",
        "too_large",
        "linked",
        "denied",
        "io",
      ]),
      message: z.string().max(1000),
    }),
  ])
);
/** One answer of the helper, as parsed. */
export type Answer = z.infer<typeof Answer>;

/** A request the service cannot serve: the helper is gone, or was never there. */
export interface Unavailable {
  readonly ok: false;
  readonly code: "unavailable";
  readonly message: string;
}

/** The answer of a request the helper cannot serve. */
export const unavailable = (message: string): Unavailable => ({
  ok: false,
  code: "unavailable",
  message,
});

/** A request sent to the helper and not answered yet. */
export interface Pending {
  readonly resolve: (a: Answer | Unavailable) => void;
  readonly timer: ReturnType<typeof setTimeout>;
}

/** Where the helper runs. */
export interface HelperOptions {
  /** The worktree (absolute). */
  readonly worktree: string;
  /** The agent's sandbox; the helper runs in it with the network cut. */
  readonly sandbox: SandboxProfile;
  /** Ends the helper. */
  readonly signal?: AbortSignal;
  /** The runtime the helper runs on (default: vouch's own, else `deno`/`node` on PATH). */
  readonly runtime?: string;
}

/** One started helper process. */
export interface Helper {
  readonly stdin: Promise<Writable | null>;
  readonly kill: AbortController;
  readonly exited: Promise<void>;
  /** Why it is gone (null while it serves). */
  dead: string | null;
}

/** Fails every request still owed with `message`. */
export function failAll(pending: Map<number, Pending>, message: string): void {
  for (const [id, p] of pending) {
    clearTimeout(p.timer);
    p.resolve(unavailable(message));
    pending.delete(id);
  }
}

/** Ends the helper for `why` (the first reason stays) and fails what it owed. */
export function endHelper(h: Helper, pending: Map<number, Pending>, why: string): void {
  if (h.dead === null) h.dead = why;
  h.kill.abort();
  failAll(pending, why);
}

/** Hands one answer line to the request it answers; a line out of bounds ends the helper. */
function takeAnswer(
  h: Helper,
  pending: Map<number, Pending>,
  text: string,
  tooLong: boolean,
): void {
  if (tooLong) return endHelper(h, pending, "the file helper sent an answer past its bound");
  if (text.trim() === "") return;
  let parsed: Answer;
  try {
    parsed = Answer.parse(JSON.parse(text));
  } catch {
    return endHelper(h, pending, "the file helper sent a malformed answer");
  }
  const p = parsed.id === null ? undefined : pending.get(parsed.id);
  if (p === undefined) {
    return endHelper(h, pending, "the file helper answered a request it was not asked");
  }
  clearTimeout(p.timer);
  pending.delete(parsed.id!);
  p.resolve(parsed);
}

/** Why the helper is gone: it could not start, or it exited (with its last stderr line). */
function exitReason(r: ProcessResult): string {
  const err = r.stderr.head.trim().split("\n").at(-1) ?? "";
  return r.spawnError !== null
    ? `the file helper could not start: ${r.spawnError.message}`
    : `the file helper exited (code ${r.exitCode})${err !== "" ? `: ${err.slice(0, 300)}` : ""}`;
}

/**
 * Starts a helper whose answers resolve `pending`, or says why there is none (no deno or node
 * runtime to run it with).
 */
export function startHelper(
  options: HelperOptions,
  pending: Map<number, Pending>,
): Helper | string {
  const runtime = options.runtime ?? helperRuntime();
  const argv = runtime === null ? null : evalArgv(runtime, FILE_HELPER_SOURCE);
  if (argv === null) {
    return "no deno or node runtime to run the file helper with (vouch's own is neither)";
  }
  const kill = new AbortController();
  let opened!: (s: Writable) => void;
  const ready = new Promise<Writable>((resolve) => (opened = resolve));
  const lines = new LineSplitter(MAX_ANSWER_LINE);
  // Assigned once below; the callbacks above it run only after that.
  // deno-lint-ignore prefer-const
  let h!: Helper;
  const proc = runProcess({
    argv,
    cwd: options.worktree,
    sandbox: helperSandbox(options.sandbox),
    env: { DENO_NO_UPDATE_CHECK: "1", DENO_NO_PACKAGE_JSON: "1", NO_COLOR: "1" },
    signal: options.signal !== undefined
      ? AbortSignal.any([options.signal, kill.signal])
      : kill.signal,
    maxCaptureBytes: 16 * 1024,
    openStdin: (s) => opened(s),
    onStdout: (chunk) => {
      for (const l of lines.push(chunk)) takeAnswer(h, pending, l.text, l.tooLong);
    },
  });
  const exited = proc.then((r) => {
    const why = exitReason(r);
    if (h.dead === null) h.dead = why;
    failAll(pending, h.dead);
  });
  h = {
    stdin: Promise.race([ready, exited.then(() => null)]),
    kill,
    exited,
    dead: null,
  };
  return h;
}
