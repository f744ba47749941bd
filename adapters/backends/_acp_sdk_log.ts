/**
 * The ACP SDK's own log lines kept out of vouch's progress. The SDK (running
 * in vouch's process as the client half) writes `console.error("Error handling
 * request", message, error)` whenever vouch answers a request with an error,
 * e.g. every refusal: a dozen lines of inspected JSON-RPC on vouch's stderr.
 * While an ACP agent is live those lines go to its round's transcript instead;
 * any other `console.error` is printed as before.
 *
 * @module
 */
import { format } from "node:util";

/** How the SDK's own log lines begin (`@agentclientprotocol/sdk` 0.14, acp.js and stream.js). */
export const SDK_LOG_PREFIXES: readonly string[] = [
  "Error handling request",
  "Error handling notification",
  "Invalid message",
  "Got response to unknown request",
  "ACP write error:",
  "Unexpected error during message processing:",
  "Failed to parse JSON message:",
];

/** Where one live agent's SDK lines go. */
export interface SdkLogSink {
  /** The agent's session id ("" before `session/new`). */
  readonly sessionId: () => string;
  /** Records one SDK line (already formatted as console.error would print it). */
  readonly record: (text: string) => void;
}

const sinks = new Set<SdkLogSink>();
let original: ((...args: unknown[]) => void) | null = null;

function sessionOf(message: unknown): string | null {
  if (typeof message !== "object" || message === null) return null;
  const params = (message as { params?: unknown }).params;
  if (typeof params !== "object" || params === null) return null;
  const id = (params as { sessionId?: unknown }).sessionId;
  return typeof id === "string" ? id : null;
}

/** Whether a console.error call is one of the SDK's own lines. */
export function isSdkLog(args: readonly unknown[]): boolean {
  const first = args[0];
  return typeof first === "string" && SDK_LOG_PREFIXES.some((p) => first.startsWith(p));
}

/**
 * Routes the SDK's log lines to `sink` until the returned function is called.
 * A line naming a session goes to that session's sink; one that names none
 * goes to every live sink.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { captureSdkLog } from "./_acp_sdk_log.ts";
 * const kept: string[] = [];
 * const release = captureSdkLog({ sessionId: () => "s1", record: (t) => kept.push(t) });
 * console.error("Error handling request", { params: { sessionId: "s1" } }, { code: -32602 });
 * release();
 * equal(kept.length, 1);
 * equal(kept[0]!.startsWith("Error handling request"), true);
 * ```
 */
export function captureSdkLog(sink: SdkLogSink): () => void {
  sinks.add(sink);
  if (original === null) {
    const before = console.error;
    original = before;
    console.error = (...args: unknown[]) => {
      if (!isSdkLog(args) || sinks.size === 0) return before.apply(console, args);
      const text = format(...args);
      const session = sessionOf(args[1]);
      const owners = [...sinks].filter((s) => session !== null && s.sessionId() === session);
      for (const s of owners.length > 0 ? owners : sinks) s.record(text);
    };
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    sinks.delete(sink);
    if (sinks.size === 0 && original !== null) {
      console.error = original;
      original = null;
    }
  };
}
