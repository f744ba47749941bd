// `vouch run --progress`: where phases and backend events go, per mode.
import assert from "node:assert/strict";
import { progressSink } from "../../../cli/commands/run_progress.ts";
import type { BackendEvent } from "../../../adapters/backends/types.ts";

function io(isTerminal: boolean) {
  const err: string[] = [];
  return { err, io: { out: () => {}, err: (t: string) => void err.push(t), isTerminal } };
}
const phase = { phase: "backend", round: 1, check: null, elapsedMs: 500 };
const events: BackendEvent[] = [
  { kind: "message", text: "Looking at\nthe test" },
  { kind: "command", command: "npm test", exitCode: 1, status: "failed" },
  { kind: "file_change", path: "src/a.js", change: "update", status: "completed" },
  { kind: "usage", usage: { inputTokens: 10, outputTokens: 5, reasoningOutputTokens: 2 } },
  { kind: "retry", attempt: 1, maxAttempts: 1, httpStatus: null, message: "Reconnecting... 1/1" },
  { kind: "protocol", code: "not_json", line: 3, detail: "x" },
];

Deno.test("progress plain off a terminal: one line per phase change and per shown event", () => {
  const { err, io: sink } = io(false);
  const p = progressSink("plain", sink, "codex", () => 2000);
  p.onProgress(phase);
  p.onProgress(phase); // same phase: no new line
  for (const e of events) p.onBackendEvent(e, 1);
  assert.deepEqual(err, [
    "[   0.5s] · round 1 · backend\n",
    "[   2.0s] · round 1 · codex · says: Looking at the test\n",
    "[   2.0s] · round 1 · codex · $ npm test → exit 1\n",
    "[   2.0s] · round 1 · codex · edit src/a.js (update)\n",
    "[   2.0s] · round 1 · codex · tokens in 10 · out 5 (reasoning 2)\n",
    "[   2.0s] · round 1 · codex · retry 1/1: Reconnecting... 1/1\n",
  ]);
  p.stop();
});

Deno.test("progress plain on a terminal: events stay above the redrawn phase line", () => {
  const { err, io: sink } = io(true);
  const p = progressSink("plain", sink, "claude", () => 1000);
  p.onProgress(phase);
  p.onBackendEvent(events[1]!, 1);
  assert.equal(err[0], "\r\x1b[2K[   0.5s] · round 1 · backend");
  assert.equal(
    err[1],
    "\r\x1b[2K[   1.0s] · round 1 · claude · $ npm test → exit 1\n[   0.5s] · round 1 · backend",
  );
  p.stop();
});

Deno.test("progress json: one object per line, events whole; none: nothing", () => {
  const { err, io: sink } = io(false);
  const p = progressSink("json", sink, "claude", () => 1234);
  p.onProgress(phase);
  p.onBackendEvent(events[2]!, 1);
  const [a, b] = err.map((l) => JSON.parse(l));
  assert.equal(a.type, "progress");
  assert.equal(a.phase, "backend");
  assert.deepEqual(b, {
    type: "backend_event",
    elapsedMs: 1234,
    round: 1,
    backend: "claude",
    event: events[2],
  });
  const quiet = io(false);
  const q = progressSink("none", quiet.io, "claude", () => 0);
  q.onProgress(phase);
  q.onBackendEvent(events[0]!, 1);
  assert.deepEqual(quiet.err, []);
  p.stop();
});

/** A fake clock: `tick()` runs every registered callback once, as the interval would. */
function fakeClock() {
  let now = 0;
  const callbacks = new Set<() => void>();
  return {
    elapsed: () => now,
    advance(ms: number) {
      now += ms;
      for (const fn of callbacks) fn();
    },
    every: (_ms: number, fn: () => void) => {
      callbacks.add(fn);
      return () => void callbacks.delete(fn);
    },
    get running() {
      return callbacks.size;
    },
  };
}

Deno.test("progress on a terminal: the clock ticks while a phase lasts, with the sub-step named", () => {
  const { err, io: sink } = io(true);
  const clock = fakeClock();
  const p = progressSink("plain", sink, "claude", clock.elapsed, { every: clock.every });
  p.onProgress({ phase: "verify", round: 1, check: null, elapsedMs: 0 });
  p.onStep("copying node_modules, 66 MB");
  clock.advance(1000);
  clock.advance(40_000);
  assert.deepEqual(err, [
    "\r\x1b[2K[   0.0s] · round 1 · verify",
    "\r\x1b[2K[   0.0s] · round 1 · verify · copying node_modules, 66 MB",
    "\r\x1b[2K[   1.0s] · round 1 · verify · copying node_modules, 66 MB",
    "\r\x1b[2K[  41.0s] · round 1 · verify · copying node_modules, 66 MB",
  ]);
  // The next check clears the step; done stops the clock.
  p.onProgress({ phase: "verify", round: 1, check: "tests", elapsedMs: 41_500 });
  assert.equal(err.at(-1), '\r\x1b[2K[  41.5s] · round 1 · verify · check "tests"');
  p.onProgress({ phase: "done", round: 1, check: null, elapsedMs: 42_000, detail: "verified" });
  assert.equal(clock.running, 0, "done stops the clock");
});

Deno.test("progress off a terminal: a 'still running' line when none was printed for plainEveryMs", () => {
  const { err, io: sink } = io(false);
  const clock = fakeClock();
  const p = progressSink("plain", sink, "claude", clock.elapsed, {
    every: clock.every,
    plainEveryMs: 10_000,
  });
  p.onProgress({ phase: "verify", round: 1, check: "tests", elapsedMs: 0 });
  clock.advance(5_000);
  assert.equal(err.length, 1, "quiet for less than plainEveryMs");
  clock.advance(5_000);
  clock.advance(2_500);
  clock.advance(7_500);
  assert.deepEqual(err, [
    '[   0.0s] · round 1 · verify · check "tests"\n',
    '[  10.0s] · round 1 · verify · check "tests" · still running\n',
    '[  20.0s] · round 1 · verify · check "tests" · still running\n',
  ]);
  p.stop();
  assert.equal(clock.running, 0);
});

Deno.test("progress: a run's note is a line in plain and none modes, a JSON object in json mode", () => {
  const note = "Note: the checkout has uncommitted changes; they are not part of the base";
  const json = io(false);
  const j = progressSink("json", json.io, "codex", () => 1500);
  j.onProgress(phase);
  j.onNote(note);
  // Every line of the json stream parses (the note was a raw text line among them).
  const lines = json.err.join("").trimEnd().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(lines.at(-1), { type: "note", text: note, elapsedMs: 1500 });
  for (const mode of ["plain", "none"] as const) {
    const plain = io(false);
    progressSink(mode, plain.io, "codex", () => 0).onNote(`${note}\x1b[31m`);
    assert.deepEqual(plain.err, [`${note}\\x1b[31m\n`]);
  }
});
