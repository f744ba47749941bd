/**
 * Kernel step benchmark: a realistic event mix over a state with 1, 100 and
 * 10,000 live tasks. Each task runs the full lifecycle (worktree, backend,
 * diff, scope, baseline, a failing round, a repair round, approval,
 * integration, cleanup) interleaved with timer ticks and ~2% redeliveries;
 * finished tasks are compacted out of the state by the kernel and replaced by
 * new submissions so the live count stays constant. Streams and starting
 * states are precomputed at module scope.
 *
 * Churn (memory): `deno run --v8-flags=--expose-gc bench/kernel_step_bench.ts`
 * also streams 300,000 events through 1,000 live tasks (about 14,000 tasks
 * submitted, finished and compacted) and prints the heap after each 50,000
 * events: with compaction it stays flat.
 *
 * `deno bench bench/kernel_step_bench.ts`: time per 1,000 steps (so the
 * reported microseconds per iteration read as nanoseconds per step).
 * `deno run --v8-flags=--expose-gc bench/kernel_step_bench.ts`: median
 * ns/step over batches and an allocation estimate from `Deno.memoryUsage()`.
 */
import {
  defaultPolicy,
  initialKernelState,
  type KernelEvent,
  type KernelState,
  step,
  type TaskRecord,
} from "../kernel/mod.ts";
import { type BudgetSpec, interleavedMs, type Measured } from "./_budget.ts";

const STREAM_LENGTH = 10_000;

/** Deterministic LCG so every run benchmarks the same stream. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

interface Workload {
  readonly start: string;
  readonly events: KernelEvent[];
}

/** The cooperative driver's next event for a task, or `null` when it is done. */
function nextFor(t: TaskRecord, seq: number, at: number, rnd: () => number): KernelEvent | null {
  const base = { v: 1 as const, id: `e${seq}`, seq, at, taskId: t.id };
  if (t.status === "awaiting_approval" && t.approval !== null) {
    const a = t.approval;
    return {
      ...base,
      kind: "approval_granted",
      approvalId: a.approvalId,
      action: "integrate",
      patchDigest: a.patchDigest,
      by: "bench",
      expiresAt: a.expiresAt,
    };
  }
  const p = t.pending;
  if (p === null) return null;
  const effectId = p.effectId;
  switch (p.kind) {
    case "create_worktree":
      return { ...base, kind: "worktree_ready", effectId, path: `/wt/${t.id}` };
    case "start_backend":
      return { ...base, kind: "backend_ready", effectId, ok: true };
    case "run_backend":
      return t.status === "worktree_ready" && rnd() < 0.5
        ? { ...base, kind: "backend_started", effectId }
        : {
          ...base,
          kind: "backend_finished",
          effectId,
          outcome: "ok",
          outputBytes: 2_000,
          costUnits: 3,
          fatal: false,
        };
    case "extract_diff":
      return {
        ...base,
        kind: "patch_extracted",
        effectId,
        patchDigest: `sha256:${t.id}:${t.round}`,
        filesChanged: 2,
      };
    case "check_scope":
      return {
        ...base,
        kind: "scope_checked",
        effectId,
        verdict: "accept",
        violations: [],
        sensitive: [],
      };
    case "run_baseline":
      return {
        ...base,
        kind: "baseline_result",
        setupReceipts: [],
        effectId,
        ran: true,
        unusable: [],
        checks: [{ id: "unit", outcome: "fail", receipts: ["sha256:receipt-unit"] }, {
          id: "lint",
          outcome: "pass",
          receipts: ["sha256:receipt-lint"],
        }],
      };
    case "run_round":
      return {
        ...base,
        kind: "verification_result",
        setupReceipts: [],
        effectId,
        round: t.round,
        // The first attempt claims done without fixing; the repair round passes.
        checks: [{
          id: "unit",
          outcome: t.round === 0 ? "fail" : "pass",
          receipts: ["sha256:receipt-unit"],
        }, {
          id: "lint",
          outcome: "pass",
          receipts: ["sha256:receipt-lint"],
        }],
      };
    case "mint":
      return { ...base, kind: "patch_minted", effectId, patchDigest: t.patchDigest ?? "" };
    case "integrate":
      return { ...base, kind: "integrated", effectId, ok: true, commit: "c0ffee" };
    case "cleanup":
      return { ...base, kind: "cleanup_done", effectId };
  }
}

/** Simulates a driver to precompute a stream of `count` events over `live` tasks. */
function workload(live: number, count: number, seed: number): Workload {
  const rnd = lcg(seed);
  const state = initialKernelState(defaultPolicy());
  let seq = 0;
  let at = 1_000;
  let nextTask = 0;
  const ids: string[] = [];
  function submit(): KernelEvent {
    const taskId = `task-${nextTask++}`;
    seq++;
    return {
      v: 1,
      kind: "task_submitted",
      id: `e${seq}`,
      seq,
      at,
      taskId,
      goal: "make the failing test pass",
      baseRev: "0123456789abcdef",
      contractDigest: "sha256:contract",
      policyDigest: "sha256:policy",
      policy: null,
      budget: {
        wallTimeMs: 3_600_000,
        repairRounds: 3,
        outputBytes: 10_000_000,
        costUnits: 10_000,
      },
    };
  }
  for (let i = 0; i < live; i++) {
    const e = submit();
    ids.push((e as { taskId: string }).taskId);
    step(state, e);
  }
  // Spread the tasks over the lifecycle before recording.
  const warm = live * 8;
  const events: KernelEvent[] = [];
  let start = "";
  for (let i = 0; i < warm + count; i++) {
    const slot = Math.floor(rnd() * ids.length);
    // A finished task is compacted out of the state once cleaned up.
    const t = state.tasks[ids[slot]!];
    at += 1;
    const r = rnd();
    let e: KernelEvent | null;
    if (r < 0.02 && events.length > 0) {
      e = events[Math.floor(rnd() * events.length)]!; // redelivery
    } else if (r < 0.2 && t !== undefined) {
      seq++;
      e = { v: 1, kind: "timer_tick", id: `e${seq}`, seq, at, taskId: t.id };
    } else {
      e = t === undefined ? null : nextFor(t, seq + 1, at, rnd);
      if (e === null) {
        // finished: replace by a fresh task
        e = submit();
        ids[slot] = (e as { taskId: string }).taskId;
      } else {
        seq++;
      }
    }
    if (i === warm) start = JSON.stringify(state);
    if (i >= warm) events.push(e);
    step(state, e);
  }
  return { start, events };
}

const SIZES = [1, 100, 10_000] as const;
const WORKLOADS = new Map<number, Workload>(
  SIZES.map((n) => [n, workload(n, STREAM_LENGTH, 42 + n)]),
);

function freshState(w: Workload): KernelState {
  return JSON.parse(w.start) as KernelState;
}

/**
 * A freshly parsed state sits in the young generation; the first scavenges
 * would copy and promote all of it inside the timed region. Churn short-lived
 * garbage first so that happens before timing starts.
 */
function settleHeap(): number {
  let sink = 0;
  for (let i = 0; i < 400_000; i++) sink += [i, i, i, i].length;
  return sink;
}

/** Steps per timed iteration: short enough to dodge most preemption on a loaded machine. */
const SLICE = 1_000;

for (const n of SIZES) {
  const w = WORKLOADS.get(n)!;
  // The state carries over between iterations; each iteration applies the
  // next SLICE events of the stream; at the end of the stream a fresh copy of
  // the starting state is parsed (untimed).
  let state = freshState(w);
  let cursor = 0;
  Deno.bench({
    group: "kernel step, 1,000 events per iteration (1 ms/iter = 1 us/step)",
    name: `${n} live task${n === 1 ? "" : "s"}`,
    baseline: n === 1,
    n: 300,
    warmup: 20,
    fn(b) {
      if (cursor + SLICE > w.events.length) {
        state = freshState(w);
        cursor = 0;
        settleHeap();
      }
      const events = w.events;
      const end = cursor + SLICE;
      let sink = 0;
      b.start();
      for (let i = cursor; i < end; i++) sink += step(state, events[i]!).actions.length;
      b.end();
      cursor = end;
      if (sink < 0) throw new Error("unreachable");
    },
  });
}

// ------------------------------------------------------------------ profile

function median(xs: number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function profile(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  console.log("kernel step profile (median over batches of 1,000 steps)");
  for (const n of SIZES) {
    const w = WORKLOADS.get(n)!;
    const perStep: number[] = [];
    const allocPerStep: number[] = [];
    let retainedPerStep = 0;
    // Timing pass: nothing but the steps between the two clock reads.
    for (let rep = 0; rep < 10; rep++) {
      const state = freshState(w);
      settleHeap();
      for (let off = 0; off < w.events.length; off += 1_000) {
        const t0 = performance.now();
        for (let i = off; i < off + 1_000; i++) step(state, w.events[i]!);
        perStep.push(((performance.now() - t0) * 1e6) / 1_000);
      }
    }
    // Allocation pass: heap growth per batch (batches with a GC are skipped).
    for (let rep = 0; rep < 3; rep++) {
      const state = freshState(w);
      gc?.();
      const heapStart = Deno.memoryUsage().heapUsed;
      for (let off = 0; off < w.events.length; off += 1_000) {
        const h0 = Deno.memoryUsage().heapUsed;
        for (let i = off; i < off + 1_000; i++) step(state, w.events[i]!);
        const h1 = Deno.memoryUsage().heapUsed;
        if (h1 >= h0) allocPerStep.push((h1 - h0) / 1_000);
      }
      gc?.();
      retainedPerStep = (Deno.memoryUsage().heapUsed - heapStart) / w.events.length;
    }
    console.log(
      `${String(n).padStart(6)} live tasks: median ${median(perStep).toFixed(0)} ns/step ` +
        `(best batch ${Math.min(...perStep).toFixed(0)}), ` +
        `~${median(allocPerStep).toFixed(0)} B allocated/step, ` +
        (gc === undefined
          ? "(run with --v8-flags=--expose-gc for retained growth)"
          : `~${retainedPerStep.toFixed(0)} B retained/step ` +
            `(${retainedPerStep.toFixed(0)} MB per 1M steps)`),
    );
  }
}

// -------------------------------------------------------------------- churn

/**
 * Streams `total` events over `live` tasks with tasks finishing and new ones
 * submitted (generated on the fly, so the stream itself takes no memory), and
 * returns the live heap (after a GC) every `every` events.
 */
function churn(live: number, total: number, every: number): { heaps: number[]; finished: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  const rnd = lcg(7);
  const state = initialKernelState(defaultPolicy());
  let seq = 0;
  let at = 1_000;
  let next = 0;
  const ids: string[] = [];
  const submit = (): KernelEvent => {
    seq++;
    return {
      v: 1,
      kind: "task_submitted",
      id: `e${seq}`,
      seq,
      at,
      taskId: `churn-${next++}`,
      goal: "g",
      baseRev: "b",
      contractDigest: "c",
      policyDigest: "p",
      policy: null,
      budget: { wallTimeMs: 1e12, repairRounds: 3, outputBytes: 1e12, costUnits: 1e12 },
    };
  };
  for (let i = 0; i < live; i++) {
    const e = submit();
    ids.push((e as { taskId: string }).taskId);
    step(state, e);
  }
  const heaps: number[] = [];
  for (let i = 1; i <= total; i++) {
    const slot = Math.floor(rnd() * ids.length);
    const t = state.tasks[ids[slot]!];
    at += 1;
    let e = t === undefined ? null : nextFor(t, seq + 1, at, rnd);
    if (e === null) {
      e = submit();
      ids[slot] = (e as { taskId: string }).taskId;
    } else {
      seq++;
    }
    step(state, e);
    if (i % every === 0) {
      gc?.();
      heaps.push(Deno.memoryUsage().heapUsed);
    }
  }
  return { heaps, finished: state.finished };
}

Deno.bench({
  group: "kernel step under churn",
  name: "100,000 events over 1,000 live tasks, finished tasks compacted (1 ms/iter = 10 ns/step)",
  n: 5,
  warmup: 1,
  fn() {
    churn(1_000, 100_000, 100_001);
  },
});

function churnProfile(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) {
    console.log("churn: run with --v8-flags=--expose-gc to measure the live heap");
    return;
  }
  const { heaps, finished } = churn(1_000, 300_000, 50_000);
  const mb = heaps.map((h) => (h / 1e6).toFixed(1));
  console.log(
    `churn: 300,000 events over 1,000 live tasks, ${finished} tasks finished and compacted; ` +
      `live heap per 50,000 events: ${mb.join(", ")} MB ` +
      `(growth first->last ${((heaps.at(-1)! - heaps[0]!) / 1e6).toFixed(2)} MB)`,
  );
}

if (import.meta.main) {
  profile();
  churnProfile();
}

// ------------------------------------------------------------------ budgets

/** A self-timed slice runner over one workload (re-parses the start state, untimed, at the end). */
function sliceRunner(w: Workload): () => number {
  let state = freshState(w);
  let cursor = 0;
  return () => {
    if (cursor + SLICE > w.events.length) {
      state = freshState(w);
      cursor = 0;
      settleHeap();
    }
    const end = cursor + SLICE;
    let sink = 0;
    const t0 = performance.now();
    for (let i = cursor; i < end; i++) sink += step(state, w.events[i]!).actions.length;
    const ms = performance.now() - t0;
    cursor = end;
    if (sink < 0) throw new Error("unreachable");
    return ms;
  };
}

/** Median per-step time (ns) over 1,000-step slices at 10k live tasks vs 1 live task. */
async function measureSteps(): Promise<Measured> {
  const big = sliceRunner(WORKLOADS.get(10_000)!);
  const one = sliceRunner(WORKLOADS.get(1)!);
  const r = await interleavedMs(big, one, { warmup: 20, rounds: 300 });
  // ms per 1,000 steps = us per step.
  return { ...r, subject: r.subject * 1000, peer: r.peer * 1000, unit: "ns" };
}

let stepsOnce: Promise<Measured> | undefined;
const steps = () => (stepsOnce ??= measureSteps());

/** Budgets checked by `deno task bench:check` (docs/benchmarks.md). */
export const budgets: readonly BudgetSpec[] = [
  {
    id: "kernel.step.10k",
    measures: "kernel step at 10,000 live tasks, median over 300 slices of each slice's mean " +
      "per event (1,000 events of the realistic mix)",
    peer: "the same mix over 1 live task",
    bound: "<= 1 us",
    measure: steps,
  },
  {
    id: "kernel.step.scale",
    measures: "kernel step at 10,000 live tasks relative to 1 live task (same run as above)",
    peer: "the same mix over 1 live task",
    bound: "<= 3x",
    measure: steps,
  },
];
