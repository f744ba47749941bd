/**
 * Where `vouch run` shows live progress (`--progress plain|json|none`): the
 * run's phases and every event of the running backend, on stderr. On a
 * terminal the phase line is redrawn and each backend event is kept as its own
 * line; off a terminal every phase change and every event is one line.
 *
 * @module
 */
import type { CliIo } from "../command.ts";
import type { ProgressMode } from "./run_args.ts";
import type { RunProgress } from "../../adapters/driver/outcome.ts";
import type { BackendEvent } from "../../adapters/backends/types.ts";
import { renderProgressLine } from "../render.ts";
import { renderBackendEventJson, renderBackendEventLine } from "../render_events.ts";

/** The two callbacks the driver calls. */
export interface ProgressSink {
  readonly onProgress: (progress: RunProgress) => void;
  readonly onBackendEvent: (event: BackendEvent, round: number) => void;
}

/**
 * Creates the sink for a mode.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { progressSink } from "./run_progress.ts";
 * const err: string[] = [];
 * const io = { out: () => {}, err: (t: string) => err.push(t), isTerminal: false };
 * const sink = progressSink("plain", io, "claude", () => 1200);
 * sink.onBackendEvent({ kind: "command", command: "npm test", exitCode: null, status: "requested" }, 1);
 * equal(err[0], "[   1.2s] · round 1 · claude · $ npm test\n");
 * ```
 */
export function progressSink(
  mode: ProgressMode,
  io: CliIo,
  backend: string,
  elapsedMs: () => number,
): ProgressSink {
  if (mode === "none") return { onProgress: () => {}, onBackendEvent: () => {} };
  if (mode === "json") {
    return {
      onProgress: (p) => io.err(JSON.stringify({ type: "progress", ...p }) + "\n"),
      onBackendEvent: (event, round) =>
        io.err(renderBackendEventJson(event, round, backend, elapsedMs()) + "\n"),
    };
  }
  let lastKey = "";
  let lastLine = "";
  return {
    onProgress: (p) => {
      const line = renderProgressLine(p);
      if (io.isTerminal) {
        io.err(`\r\x1b[2K${line}`);
        lastLine = line;
        if (p.phase === "done") io.err("\n");
        return;
      }
      // Not a terminal: one line per phase/check change, no redraws.
      const key = `${p.round}|${p.phase}|${p.check ?? ""}`;
      if (key !== lastKey) io.err(`${line}\n`);
      lastKey = key;
    },
    onBackendEvent: (event, round) => {
      const line = renderBackendEventLine(event, round, backend, elapsedMs());
      if (line === null) return;
      // On a terminal the event stays above the redrawn phase line.
      if (io.isTerminal) io.err(`\r\x1b[2K${line}\n${lastLine}`);
      else io.err(`${line}\n`);
    },
  };
}
