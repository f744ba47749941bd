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
import {
  type Answer,
  endHelper,
  type Helper,
  type HelperOptions,
  MAX_FILE_BYTES,
  type Pending,
  startHelper,
  unavailable,
} from "./_file_helper_process.ts";

export { MAX_FILE_BYTES };

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
export interface FileServiceOptions extends HelperOptions {
  /** Time one request may take before the helper is ended, ms. @default 30000 */
  readonly requestTimeoutMs?: number;
}

const MAX_STARTS = 3;

/** A helper's refusal as the service's answer (null for an answer that is not one). */
const refusal = (a: Answer | FileRefusal): FileRefusal | null =>
  a.ok ? null : { ok: false, code: a.code, message: a.message };

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

  // The helper in service, started (again, up to MAX_STARTS) when there is none.
  const serving = (): Helper | FileRefusal => {
    if (helper !== null && helper.dead === null) return helper;
    if (helper !== null && starts >= MAX_STARTS) return unavailable(helper.dead!);
    const started = startHelper(options, pending);
    if (typeof started === "string") return unavailable(started);
    starts++;
    helper = started;
    return helper;
  };

  const request = async (body: Record<string, unknown>): Promise<Answer | FileRefusal> => {
    if (closed) return unavailable("the file service is closed");
    if (options.signal?.aborted) return unavailable("the run was stopped");
    const h = serving();
    if ("ok" in h) return h;
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
        endHelper(h, pending, "the file helper stopped answering");
      }, timeoutMs);
      pending.set(id, { resolve, timer });
    });
    stdin.write(JSON.stringify({ id, ...body }) + "\n");
    return await answer;
  };

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
