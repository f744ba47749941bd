/**
 * Where `vouch run` shows live progress (`--progress plain|json|none`): the
 * run's phases and every event of the running backend, on stderr. On a
 * terminal the phase line is redrawn and each backend event is kept as its own
 * line; off a terminal every phase change and every event is one line.
 *
 * @module
 */
import { visible, visibleLine } from "../../adapters/text/mod.ts";
import process from "node:process";
import type { CliIo } from "../command.ts";
import type { ProgressMode } from "./run_args.ts";
import type { RunProgress } from "../../adapters/driver/outcome.ts";
import type { BackendEvent } from "../../adapters/backends/types.ts";
import { renderProgressLine } from "../render.ts";
import { renderBackendEventJson, renderBackendEventLine } from "../render_events.ts";

/** The callbacks the driver calls, and `stop` (ends the ticking clock). */
export interface ProgressSink {
  readonly onProgress: (progress: RunProgress) => void;
  readonly onBackendEvent: (event: BackendEvent, round: number) => void;
  /** A sub-step of the current phase, with its size (`copying node_modules, 66 MB`). */
  readonly onStep: (step: string) => void;
  /** A note of the run (a dirty checkout, a stale lock): a line, or in `json` mode an object. */
  readonly onNote: (text: string) => void;
  /** Stops the clock (also stopped by the `done` phase). Safe to call twice. */
  readonly stop: () => void;
}

/** How the clock ticks: calls `fn` every `ms` until the returned function is called. */
export type Every = (ms: number, fn: () => void) => () => void;

/** The real clock: an unref'd interval (it never keeps the process alive). */
export const realEvery: Every = (ms: number, fn: () => void): () => void => {
  const id = setInterval(fn, ms);
  (id as unknown as { unref?: () => void }).unref?.();
  return () => clearInterval(id);
};

/** Options of {@linkcode progressSink}. */
export interface ProgressSinkOptions {
  /** Redraw interval of the live line on a terminal. @default 1000 */
  readonly redrawMs?: number;
  /** Off a terminal: a "still running" line after this long without one. @default 15000 */
  readonly plainEveryMs?: number;
  /** The clock (tests pass a fake one). @default realEvery */
  readonly every?: Every;
}

/**
 * Creates the sink for a mode. The elapsed time keeps moving while a phase
 * lasts: on a terminal the live line is redrawn every second; off a terminal a
 * `still running` line is printed when none was for `plainEveryMs`.
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
 * sink.stop();
 * ```
 */
export function progressSink(
  mode: ProgressMode,
  io: CliIo,
  backend: string,
  elapsedMs: () => number,
  options: ProgressSinkOptions = {},
): ProgressSink {
  const quiet = {
    onProgress: () => {},
    onBackendEvent: () => {},
    onStep: () => {},
    // Notes are said in every mode (none only stops the progress).
    onNote: (text: string) => io.err(`${visible(text)}\n`),
    stop: () => {},
  };
  if (mode === "none") return quiet;
  if (mode === "json") {
    return {
      ...quiet,
      // Every line of the stream is one JSON object, a note too.
      onNote: (text) =>
        io.err(JSON.stringify({ type: "note", text, elapsedMs: elapsedMs() }) + "\n"),
      onProgress: (p) => io.err(JSON.stringify({ type: "progress", ...p }) + "\n"),
      onBackendEvent: (event, round) =>
        io.err(renderBackendEventJson(event, round, backend, elapsedMs()) + "\n"),
      onStep: (step) =>
        io.err(JSON.stringify({ type: "step", step, elapsedMs: elapsedMs() }) + "\n"),
    };
  }
  const every = options.every ?? realEvery;
  const plainEvery = options.plainEveryMs ?? 15_000;
  let lastKey = "";
  let lastLine = "";
  let current: RunProgress | null = null;
  let receivedAt = 0;
  let step: string | null = null;
  let lastOut = 0;
  // The driver's elapsed time, moved on by the sink's clock since it last reported.
  const render = (now: boolean, suffix = "") => {
    if (current === null) return "";
    const moved = now ? current.elapsedMs : current.elapsedMs + (elapsedMs() - receivedAt);
    const p = { ...current, elapsedMs: moved, ...(step === null ? {} : { detail: step }) };
    // Check names and steps come from contracts and agents: escapes shown, never acted on.
    return visibleLine(renderProgressLine(p) + suffix);
  };
  const print = (line: string) => {
    lastOut = elapsedMs();
    if (io.isTerminal) {
      io.err(`\r\x1b[2K${line}`);
      lastLine = line;
    } else io.err(`${line}\n`);
  };
  let stopClock: (() => void) | null = null;
  let stopped = false;
  const startClock = () => {
    if (stopClock !== null || stopped) return;
    stopClock = every(
      io.isTerminal ? options.redrawMs ?? 1000 : Math.max(1, Math.floor(plainEvery / 4)),
      () => {
        if (io.isTerminal) print(render(false));
        else if (elapsedMs() - lastOut >= plainEvery) print(render(false, " · still running"));
      },
    );
  };
  const stop = () => {
    stopped = true;
    stopClock?.();
    stopClock = null;
  };
  return {
    onProgress: (p) => {
      const key = `${p.round}|${p.phase}|${p.check ?? ""}`;
      if (key !== lastKey) step = null;
      current = p;
      receivedAt = elapsedMs();
      startClock();
      if (io.isTerminal) {
        print(render(true));
        if (p.phase === "done") {
          io.err("\n");
          stop();
        }
        lastKey = key;
        return;
      }
      // Not a terminal: one line per phase/check change; the clock adds "still running" lines.
      if (key !== lastKey) print(render(true));
      lastKey = key;
      if (p.phase === "done") stop();
    },
    onStep: (text) => {
      step = text;
      print(render(false));
    },
    onBackendEvent: (event, round) => {
      const line = renderBackendEventLine(event, round, backend, elapsedMs());
      if (line === null) return;
      // On a terminal the event stays above the redrawn phase line.
      if (io.isTerminal) io.err(`\r\x1b[2K${line}\n${lastLine}`);
      else io.err(`${line}\n`);
    },
    onNote: (text) => {
      if (io.isTerminal) io.err(`\r\x1b[2K${visible(text)}\n${lastLine}`);
      else io.err(`${visible(text)}\n`);
    },
    stop,
  };
}

/**
 * Off a terminal, how long progress may stay silent before a "still running"
 * line: `VOUCH_PROGRESS_EVERY` seconds (1..3600), else 15 s.
 */
export function plainProgressEveryMs(): number {
  let raw: string | undefined;
  try {
    raw = process.env["VOUCH_PROGRESS_EVERY"];
  } catch {
    raw = undefined;
  }
  const n = raw !== undefined && /^[0-9]{1,4}$/.test(raw) ? Number(raw) : NaN;
  return n >= 1 && n <= 3600 ? n * 1000 : 15_000;
}
