/**
 * How the native `openai:` loop reaches its model when vouch itself runs with
 * `--deny-net` (`deno task vouch`): one small helper process, a Deno that may
 * reach the model's one address and nothing else (`--allow-net=HOST:PORT`,
 * no file, environment or process permission), does each HTTP request for
 * vouch over its stdin/stdout (one JSON line each way per request). The
 * helper starts once per run, when the run starts (its start overlaps the
 * worktree and the baseline); it replaces starting
 * the whole CLI a second time with `--allow-net` (what vouch did before).
 * Where vouch may already reach the address (a process with that
 * permission, Node), the global `fetch` is used and nothing is started.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import process from "node:process";
import { HELPER_SOURCE } from "./_model_net_source.ts";

/** A `fetch` for the model's address, and how to stop what it started. */
export interface ModelFetch {
  /** `fetch` as the chat client calls it (method, headers, string body, signal). */
  readonly fetch: typeof fetch;
  /** `helper`: requests go through the helper process; `direct`: the global `fetch`. */
  readonly kind: "helper" | "direct";
  /** Ends the helper (idempotent; nothing to do for `direct`). */
  close(): void;
}

/** Whether this process may reach `host` (`host:port`) itself. */
function mayReach(host: string): boolean {
  const deno = (globalThis as { Deno?: typeof Deno }).Deno;
  // Under Node there is no permission system: vouch reaches the model itself.
  if (deno === undefined) return true;
  try {
    return deno.permissions.querySync({ name: "net", host }).state === "granted";
  } catch {
    return false;
  }
}

/** One answer of the helper. */
interface Answer {
  readonly id: number;
  readonly status?: number;
  readonly headers?: [string, string][];
  readonly body?: string;
  readonly error?: string;
}

/**
 * A `fetch` that reaches `host:port` (the model's address): the global one
 * where this process may, else one that goes through the helper process.
 * Throws when a helper is needed and cannot exist (a compiled binary, whose
 * executable is not a Deno that runs scripts).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { modelFetch } from "./model_net.ts";
 * // Doc examples run with every permission: the model is reached directly.
 * const net = modelFetch("127.0.0.1", 8080);
 * equal(net.kind, "direct");
 * net.close();
 * ```
 */
export function modelFetch(host: string, port: number): ModelFetch {
  const address = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
  if (mayReach(address)) return { fetch: globalThis.fetch, kind: "direct", close: () => {} };
  const deno = (globalThis as { Deno?: typeof Deno }).Deno;
  if (deno === undefined || !deno.mainModule.startsWith("file:")) {
    throw new Error(
      `Cannot reach the model at ${address}: this process has no network permission for it ` +
        `(run under \`deno run --allow-net=${address} ...\`; a compiled binary cannot widen its permissions)`,
    );
  }
  let child: ChildProcess | null = null;
  let closed = false;
  let nextId = 1;
  const pending = new Map<number, { resolve: (a: Answer) => void; reject: (e: Error) => void }>();
  const failAll = (why: string) => {
    for (const p of pending.values()) p.reject(new Error(why));
    pending.clear();
  };
  const start = (): ChildProcess => {
    const c = spawn(deno.execPath(), [
      "run",
      "--quiet",
      "--no-prompt",
      "--no-config",
      "--no-lock",
      "--no-remote",
      `--allow-net=${address}`,
      `data:application/javascript;base64,${btoa(HELPER_SOURCE)}`,
    ], { stdio: ["pipe", "pipe", "ignore"], env: process.env });
    let buf = "";
    c.stdout?.setEncoding("utf8");
    c.stdout?.on("data", (chunk: string) => {
      buf += chunk;
      for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        let answer: Answer;
        try {
          answer = JSON.parse(line) as Answer;
        } catch {
          continue;
        }
        const p = pending.get(answer.id);
        pending.delete(answer.id);
        p?.resolve(answer);
      }
    });
    c.stdin?.on("error", () => {});
    c.on("error", (e) => failAll(`the model's network helper failed: ${e.message}`));
    c.on("exit", (code) => {
      child = null;
      failAll(`the model's network helper exited (code ${code})`);
    });
    return c;
  };
  // Started now, so its start overlaps the worktree and the baseline instead of round 1.
  child = start();
  const helperFetch = (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    if (closed) return Promise.reject(new Error("the model's network helper was closed"));
    const signal = init.signal ?? null;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const c = child ??= start();
    const id = nextId++;
    const headers = [...new Headers(init.headers).entries()];
    const url = input instanceof Request ? input.url : String(input);
    return new Promise<Response>((resolve, reject) => {
      const onAbort = () => {
        pending.delete(id);
        c.stdin?.write(JSON.stringify({ id, abort: true }) + "\n");
        reject(signal?.reason ?? new DOMException("aborted", "AbortError"));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      pending.set(id, {
        resolve: (a) => {
          signal?.removeEventListener("abort", onAbort);
          if (a.error !== undefined || a.status === undefined) {
            reject(new TypeError(a.error ?? "no answer"));
          } else {
            const empty = [101, 204, 205, 304].includes(a.status);
            const init = { status: a.status, headers: a.headers ?? [] };
            resolve(new Response(empty ? null : a.body ?? "", init));
          }
        },
        reject: (e) => (signal?.removeEventListener("abort", onAbort), reject(e)),
      });
      const body = typeof init.body === "string" ? init.body : undefined;
      c.stdin?.write(
        JSON.stringify({ id, url, method: init.method ?? "GET", headers, body }) + "\n",
      );
    });
  };
  return {
    fetch: helperFetch as typeof fetch,
    kind: "helper",
    close: () => {
      closed = true;
      failAll("the model's network helper was closed");
      const c = child;
      child = null;
      try {
        c?.stdin?.end();
        c?.kill();
      } catch { /* already gone */ }
    },
  };
}
