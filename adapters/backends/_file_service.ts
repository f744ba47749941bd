/**
 * The agent's file operations, performed on the agent's side of the wall:
 * one long-lived helper process per run (`_file_helper_source.ts`), started
 * with vouch's own runtime inside the agent's sandbox (network cut), in the
 * worktree. vouch's own process never opens a path the agent chose; it only
 * sends the kernel-judged tree-relative path and reads a bounded answer. The
 * helper walks descriptor-relative with `O_NOFOLLOW`, so neither a link nor a
 * rename race leads it out of the tree; with `--sandbox none` that walk is
 * the wall. A helper that fails, hangs or answers out of bounds is ended and
 * every request it owed fails closed.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import type { Writable } from "node:stream";
import { basename } from "node:path";
import process from "node:process";
import { z } from "zod";
import { runProcess } from "../process/run.ts";
import { BWRAP_HOME, findOnPath } from "../sandbox/bwrap.ts";
import type { SandboxProfile } from "../sandbox/profile.ts";
import { FILE_HELPER_SOURCE } from "./_file_helper_source.ts";
import { LineSplitter } from "./line_splitter.ts";

/** Why the helper refused or failed a request. */
export type FileRefusalCode =
  | "bad_request"
  | "not_found"
  | "symlink"
  | "not_dir"
  | "not_regular"
  | "too_large"
  | "linked"
  | "denied"
  | "io"
  | "unavailable";

/** A refused or failed request. */
export interface FileRefusal {
  readonly ok: false;
  readonly code: FileRefusalCode;
  readonly message: string;
}

/** The answer to one request. */
export type FileAnswer<T> = ({ readonly ok: true } & T) | FileRefusal;

/** File operations inside the worktree (paths are kernel-judged, tree-relative, `/`-separated). */
export interface FileService {
  /** A regular file's bytes; `too_large` without reading when it has more than `maxBytes`. */
  read(path: string, maxBytes: number): Promise<FileAnswer<{ readonly data: Uint8Array }>>;
  /** Creates or replaces a regular file (parents created; never through a link). */
  write(path: string, data: Uint8Array): Promise<FileAnswer<{ readonly bytes: number }>>;
  /** A directory's entries (name, is-a-directory), at most `maxEntries`, and their total. */
  list(
    path: string,
    maxEntries: number,
  ): Promise<
    FileAnswer<
      { readonly entries: readonly (readonly [string, boolean])[]; readonly total: number }
    >
  >;
  /** Ends the helper (idempotent). */
  close(): Promise<void>;
}

/** Options of {@linkcode fileService}. */
export interface FileServiceOptions {
  /** The worktree (absolute). */
  readonly worktree: string;
  /** The agent's sandbox; the helper runs in it with the network cut. */
  readonly sandbox: SandboxProfile;
  /** Ends the helper. */
  readonly signal?: AbortSignal;
  /** Time one request may take before the helper is ended, ms. @default 30000 */
  readonly requestTimeoutMs?: number;
  /** The runtime the helper runs on (default: vouch's own, else `deno`/`node` on PATH). */
  readonly runtime?: string;
}

/** Largest read the service asks for (bytes). */
export const MAX_FILE_BYTES = 8 * 1024 * 1024;
// base64 of the largest read plus the envelope.
const MAX_ANSWER_LINE = Math.ceil(MAX_FILE_BYTES / 3) * 4 + 64 * 1024;
const MAX_STARTS = 3;

const Answer = z.union([
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
]);
type Answer = z.infer<typeof Answer>;

/**
 * The argv that runs the ES module `source` with `runtime` (Deno:
 * `deno eval`; Node: `node -e`), `args` after `--` (the module reads its
 * last ones from `process.argv`), or null when the runtime is neither.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { evalArgv } from "./_file_service.ts";
 * equal(evalArgv("/usr/bin/node", "1")?.[1], "--input-type=module");
 * equal(evalArgv("/usr/bin/python3", "1"), null);
 * ```
 */
export function evalArgv(
  runtime: string,
  source: string,
  args: readonly string[] = [],
): string[] | null {
  const name = basename(runtime);
  const tail = args.length > 0 ? ["--", ...args] : [];
  if (/^deno(\.exe)?$/.test(name)) {
    return [runtime, "eval", "--quiet", "--no-config", "--no-lock", "--ext=js", source, ...tail];
  }
  if (/^node(js)?(\d+)?(\.exe)?$/.test(name)) {
    return [runtime, "--input-type=module", "-e", source, ...tail];
  }
  return null;
}

/**
 * The runtime vouch's helpers run on: vouch's own (`process.execPath`) when
 * it is deno or node, else (a compiled vouch) a `deno` or `node` on PATH,
 * which the sandbox mounts like any toolchain; null when there is none.
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { helperRuntime } from "./_file_service.ts";
 * ok(helperRuntime() !== null);
 * ```
 */
export function helperRuntime(): string | null {
  if (evalArgv(process.execPath, "") !== null) return process.execPath;
  return findOnPath("deno") ?? findOnPath("node");
}

/**
 * The helper's confinement: the agent's sandbox with the network cut and an
 * empty private HOME (it needs neither the agent's state copy nor anything
 * else of it).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { helperSandbox } from "./_file_service.ts";
 * const p = helperSandbox({ kind: "bwrap", bwrapPath: "/usr/bin/bwrap", writable: ["/wt"],
 *   readOnly: [], hiddenDirs: [], hiddenFiles: [], shareNetwork: true, homeSource: "/s/home" });
 * equal(p.kind === "bwrap" && p.shareNetwork, false);
 * equal(p.kind === "bwrap" && p.homeSource, undefined);
 * ```
 */
export function helperSandbox(sandbox: SandboxProfile): SandboxProfile {
  if (sandbox.kind !== "bwrap") return sandbox;
  const { homeSource: _state, launcher: _egress, ...rest } = sandbox;
  return { ...rest, home: BWRAP_HOME, shareNetwork: false };
}

const unavailable = (message: string): FileRefusal => ({ ok: false, code: "unavailable", message });

interface Pending {
  readonly resolve: (a: Answer | FileRefusal) => void;
  readonly timer: ReturnType<typeof setTimeout>;
}

interface Helper {
  readonly stdin: Promise<Writable | null>;
  readonly kill: AbortController;
  readonly exited: Promise<void>;
  dead: string | null;
}

/**
 * The file service of one run; the helper starts on the first request.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { equal } from "node:assert/strict";
 * import { fileService } from "./_file_service.ts";
 * const wt = mkdtempSync(join(tmpdir(), "vouch-"));
 * writeFileSync(`${wt}/a.txt`, "hi");
 * const files = fileService({ worktree: wt, sandbox: { kind: "none" } });
 * const r = await files.read("a.txt", 100);
 * equal(r.ok && new TextDecoder().decode(r.data), "hi");
 * await files.close();
 * rmSync(wt, { recursive: true, force: true });
 * ```
 */
export function fileService(options: FileServiceOptions): FileService {
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let starts = 0;
  let helper: Helper | null = null;
  let closed = false;
  const timeoutMs = options.requestTimeoutMs ?? 30_000;

  const failAll = (message: string) => {
    for (const [id, p] of pending) {
      clearTimeout(p.timer);
      p.resolve(unavailable(message));
      pending.delete(id);
    }
  };
  const end = (h: Helper, why: string) => {
    if (h.dead === null) h.dead = why;
    h.kill.abort();
    failAll(why);
  };

  const start = (): Helper | string => {
    const runtime = options.runtime ?? helperRuntime();
    const argv = runtime === null ? null : evalArgv(runtime, FILE_HELPER_SOURCE);
    if (argv === null) {
      return "no deno or node runtime to run the file helper with (vouch's own is neither)";
    }
    starts++;
    const kill = new AbortController();
    let opened!: (s: Writable) => void;
    const ready = new Promise<Writable>((resolve) => (opened = resolve));
    const lines = new LineSplitter(MAX_ANSWER_LINE);
    // Assigned once below; the callbacks above it run only after that.
    // deno-lint-ignore prefer-const
    let h!: Helper;
    const take = (text: string, tooLong: boolean) => {
      if (tooLong) return end(h, "the file helper sent an answer past its bound");
      if (text.trim() === "") return;
      let parsed: Answer;
      try {
        parsed = Answer.parse(JSON.parse(text));
      } catch {
        return end(h, "the file helper sent a malformed answer");
      }
      const p = parsed.id === null ? undefined : pending.get(parsed.id);
      if (p === undefined) return end(h, "the file helper answered a request it was not asked");
      clearTimeout(p.timer);
      pending.delete(parsed.id!);
      p.resolve(parsed);
    };
    const sandbox = helperSandbox(options.sandbox);
    const proc = runProcess({
      argv,
      cwd: options.worktree,
      sandbox,
      env: { DENO_NO_UPDATE_CHECK: "1", DENO_NO_PACKAGE_JSON: "1", NO_COLOR: "1" },
      signal: options.signal !== undefined
        ? AbortSignal.any([options.signal, kill.signal])
        : kill.signal,
      maxCaptureBytes: 16 * 1024,
      openStdin: (s) => opened(s),
      onStdout: (chunk) => {
        for (const l of lines.push(chunk)) take(l.text, l.tooLong);
      },
    });
    const exited = proc.then((r) => {
      const err = r.stderr.head.trim().split("\n").at(-1) ?? "";
      const why = r.spawnError !== null
        ? `the file helper could not start: ${r.spawnError.message}`
        : `the file helper exited (code ${r.exitCode})${
          err !== "" ? `: ${err.slice(0, 300)}` : ""
        }`;
      if (h.dead === null) h.dead = why;
      failAll(h.dead);
    });
    h = {
      stdin: Promise.race([ready, exited.then(() => null)]),
      kill,
      exited,
      dead: null,
    };
    return h;
  };

  const request = async (body: Record<string, unknown>): Promise<Answer | FileRefusal> => {
    if (closed) return unavailable("the file service is closed");
    if (options.signal?.aborted) return unavailable("the run was stopped");
    if (helper === null || helper.dead !== null) {
      if (helper !== null && starts >= MAX_STARTS) return unavailable(helper.dead!);
      const started = start();
      if (typeof started === "string") return unavailable(started);
      helper = started;
    }
    const h = helper;
    const stdin = await h.stdin;
    if (stdin === null || stdin.destroyed || h.dead !== null) {
      await h.exited;
      return unavailable(h.dead ?? "the file helper is gone");
    }
    const id = nextId++;
    const answer = new Promise<Answer | FileRefusal>((resolve) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        resolve(unavailable(`the file helper did not answer within ${timeoutMs} ms`));
        end(h, "the file helper stopped answering");
      }, timeoutMs);
      pending.set(id, { resolve, timer });
    });
    stdin.write(JSON.stringify({ id, ...body }) + "\n");
    return await answer;
  };

  const refusal = (a: Answer | FileRefusal): FileRefusal | null =>
    a.ok ? null : { ok: false, code: a.code, message: a.message };

  return {
    async read(path, maxBytes) {
      const a = await request({ op: "read", path, max: Math.min(maxBytes, MAX_FILE_BYTES) });
      const r = refusal(a);
      if (r !== null) return r;
      const data = (a as { data?: string }).data;
      if (data === undefined) return unavailable("the file helper sent no data");
      return { ok: true, data: new Uint8Array(Buffer.from(data, "base64")) };
    },
    async write(path, data) {
      const a = await request({ op: "write", path, data: Buffer.from(data).toString("base64") });
      const r = refusal(a);
      if (r !== null) return r;
      return { ok: true, bytes: (a as { bytes?: number }).bytes ?? data.length };
    },
    async list(path, maxEntries) {
      const a = await request({ op: "list", path, max: maxEntries });
      const r = refusal(a);
      if (r !== null) return r;
      const ok = a as { entries?: [string, boolean][]; total?: number };
      return { ok: true, entries: ok.entries ?? [], total: ok.total ?? 0 };
    },
    async close() {
      closed = true;
      const h = helper;
      if (h === null) return;
      const stdin = await h.stdin;
      stdin?.end();
      const timer = setTimeout(() => h.kill.abort(), 2000);
      await h.exited;
      clearTimeout(timer);
    },
  };
}
