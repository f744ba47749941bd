/**
 * Live rendering of a running backend's events (messages, commands, file
 * edits, token use, provider retries, errors) for `vouch run --progress`:
 * one plain line per event, or one JSON object per event. Pure functions;
 * the CLI decides where the text goes.
 *
 * @module
 */
import { visibleLine } from "../adapters/text/mod.ts";
import type { BackendEvent, BackendUsage } from "../adapters/backends/types.ts";

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/**
 * Token use in a few words: `tokens in 306 (cached 21) · out 60 (reasoning 11) · $0.0024`.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { renderUsage } from "./render_events.ts";
 * equal(renderUsage({ inputTokens: 306, cachedInputTokens: 21, outputTokens: 60 }), "tokens in 306 (cached 21) · out 60");
 * ```
 */
export function renderUsage(u: BackendUsage): string {
  const parts: string[] = [];
  if (u.inputTokens !== undefined) {
    const extra = [
      ...(u.cachedInputTokens ? [`cached ${u.cachedInputTokens}`] : []),
      ...(u.cacheWriteInputTokens ? [`cache write ${u.cacheWriteInputTokens}`] : []),
    ];
    parts.push(`tokens in ${u.inputTokens}${extra.length > 0 ? ` (${extra.join(", ")})` : ""}`);
  }
  if (u.outputTokens !== undefined) {
    parts.push(
      `out ${u.outputTokens}${
        u.reasoningOutputTokens ? ` (reasoning ${u.reasoningOutputTokens})` : ""
      }`,
    );
  }
  if (u.costUsd !== undefined) parts.push(`$${u.costUsd.toFixed(4)}`);
  return parts.join(" · ");
}

/**
 * The words of one event, or null for events not shown (protocol notes, stderr, an empty message).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { describeBackendEvent } from "./render_events.ts";
 * equal(describeBackendEvent({ kind: "command", command: "npm test", exitCode: 1, status: "failed" }), "$ npm test → exit 1");
 * equal(describeBackendEvent({ kind: "file_change", path: "src/a.js", change: "update", status: "failed" }), "edit src/a.js (update, failed)");
 * equal(describeBackendEvent({ kind: "tool", name: "permission:edit", isError: true, refused: "test/a.js is protected" }), "tool permission:edit (vouch refused: test/a.js is protected)");
 * ```
 */
export function describeBackendEvent(event: BackendEvent): string | null {
  switch (event.kind) {
    case "started":
      return `started${event.sessionId ? ` (session ${event.sessionId.slice(0, 12)})` : ""}`;
    case "message": {
      const text = oneLine(event.text, 120);
      return text === "" ? null : `says: ${text}`;
    }
    case "command": {
      const cmd = `$ ${oneLine(event.command, 100)}`;
      if (event.status === "in_progress" || event.status === "requested") return cmd;
      return event.exitCode !== null
        ? `${cmd} → exit ${event.exitCode}`
        : `${cmd} → ${event.status}`;
    }
    case "file_change":
      return `edit ${oneLine(event.path, 100)} (${event.change}${
        event.status === "failed" ? ", failed" : ""
      })`;
    case "tool":
      return event.name === "tool_result"
        ? (event.isError ? "tool call failed" : null)
        : event.refused !== undefined
        ? `tool ${event.name} (vouch refused: ${oneLine(event.refused, 200)})`
        : `tool ${event.name}${event.isError ? " (failed)" : ""}`;
    case "usage": {
      const text = renderUsage(event.usage);
      return text === "" ? null : text;
    }
    case "retry":
      return `retry ${event.attempt}${event.maxAttempts !== null ? `/${event.maxAttempts}` : ""}: ${
        oneLine(event.message, 160)
      }`;
    case "error":
      return `${event.fatal ? "error" : "warning"}: ${oneLine(event.message, 200)}`;
    case "protocol":
    case "stderr":
    case "step": // on the live line (the driver's progress detail), not a line of its own
      return null;
  }
}

/**
 * One plain progress line for a backend event: `[  2.8s] · round 1 · claude · $ npm test`.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { renderBackendEventLine } from "./render_events.ts";
 * const line = renderBackendEventLine({ kind: "retry", attempt: 1, maxAttempts: 3, httpStatus: 500, message: "provider request failed (HTTP 500): server_error" }, 1, "claude", 2800);
 * equal(line, "[   2.8s] · round 1 · claude · retry 1/3: provider request failed (HTTP 500): server_error");
 * ```
 */
export function renderBackendEventLine(
  event: BackendEvent,
  round: number,
  backend: string,
  elapsedMs: number,
): string | null {
  const words = describeBackendEvent(event);
  if (words === null) return null;
  // Agent text is untrusted: its escapes (ESC, OSC 8, BEL, CR) are shown, never acted on.
  return visibleLine(
    `[${seconds(elapsedMs).padStart(7)}] · round ${round} · ${backend} · ${words}`,
  );
}

/**
 * One JSON progress object for a backend event (`--progress json`).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { renderBackendEventJson } from "./render_events.ts";
 * const o = JSON.parse(renderBackendEventJson({ kind: "message", text: "hi" }, 2, "codex", 1500));
 * equal(o.type, "backend_event");
 * equal(o.event.kind, "message");
 * ```
 */
export function renderBackendEventJson(
  event: BackendEvent,
  round: number,
  backend: string,
  elapsedMs: number,
): string {
  return JSON.stringify({ type: "backend_event", elapsedMs, round, backend, event });
}
