/**
 * What an ACP agent's JSON-RPC error says, as one line for people, and its
 * class: `config` when the agent cannot start a session (authentication
 * required, or any failure of `initialize`/`session/new`: a missing API key,
 * a bad flag), `protocol` when vouch and the agent disagree on the protocol
 * itself, `execution` for a failure inside a turn.
 *
 * @module
 */
import { boundText } from "./types.ts";

/** A JSON-RPC error object as the SDK rejects with it (or a `RequestError`). */
export interface RpcError {
  readonly code: number;
  readonly text: string;
}

function oneLine(s: string): string {
  // deno-lint-ignore no-control-regex
  return s.replace(/[\u0000-\u001f\u007f]+/g, " ").replace(/\s+/g, " ").trim();
}

/**
 * The code and one-line text of a JSON-RPC error (its `message`, then
 * `data.message`, `data.details` or a string `data` when they add
 * something), or null when `error` is not one.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { describeRpcError } from "./_acp_errors.ts";
 * const e = describeRpcError({ code: -32603, message: "Internal error", data: { details: "API key is missing" } });
 * equal(e?.text, "Internal error: API key is missing");
 * equal(describeRpcError(new Error("x")), null);
 * ```
 */
export function describeRpcError(error: unknown): RpcError | null {
  if (error === null || typeof error !== "object") return null;
  const e = error as { code?: unknown; message?: unknown; data?: unknown };
  if (typeof e.code !== "number" || !Number.isInteger(e.code)) return null;
  const parts: string[] = [];
  const add = (v: unknown) => {
    if (typeof v !== "string") return;
    const line = oneLine(v);
    if (line !== "" && !parts.some((p) => p.includes(line))) parts.push(line);
  };
  add(e.message);
  if (typeof e.data === "string") add(e.data);
  else if (e.data !== null && typeof e.data === "object") {
    const d = e.data as Record<string, unknown>;
    add(d.message);
    add(d.details);
    if (d.error !== null && typeof d.error === "object") {
      add((d.error as Record<string, unknown>).message);
    }
  }
  const text = parts.length > 0 ? parts.join(": ") : `JSON-RPC error ${e.code}`;
  return { code: e.code, text: boundText(text, 500) };
}

/** JSON-RPC codes that mean the two sides disagree on the protocol itself. */
const PROTOCOL_CODES = new Set([-32700, -32600, -32601, -32602]);
/** ACP's "authentication required". */
const AUTH_REQUIRED = -32000;

/**
 * The failure class of a JSON-RPC error met while starting (`initialize`,
 * `session/new`) or during a turn.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { rpcErrorClass } from "./_acp_errors.ts";
 * equal(rpcErrorClass(-32000, "turn"), "config");
 * equal(rpcErrorClass(-32603, "start"), "config");
 * equal(rpcErrorClass(-32601, "start"), "protocol");
 * equal(rpcErrorClass(-32603, "turn"), "execution");
 * ```
 */
export function rpcErrorClass(
  code: number,
  phase: "start" | "turn",
): "config" | "protocol" | "execution" {
  if (code === AUTH_REQUIRED) return "config";
  if (PROTOCOL_CODES.has(code)) return "protocol";
  return phase === "start" ? "config" : "execution";
}
