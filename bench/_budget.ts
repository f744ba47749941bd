/**
 * Budgets for `deno task bench:check`: each bench file exports `budgets`, a
 * list of {@link BudgetSpec} (what is measured, its in-run peer, the bound as
 * text, and a `measure` function). `measure` runs the subject and its peer
 * interleaved in one run ({@link interleaved}), so machine load hits both
 * alike, and returns both medians; {@link judge} turns that into a table row
 * with the ratio subject/peer and pass/fail. Not part of the library.
 *
 * @module
 */

/** `<=` or `>=`. */
export type BoundOp = "<=" | ">=";

/**
 * A parsed bound: `ratio` bounds compare subject/peer with `value`; absolute
 * bounds compare the subject (converted to `unit`) with `value`.
 */
export interface Bound {
  readonly op: BoundOp;
  readonly value: number;
  /** `x` for a ratio; a time unit (`ns`, `us`, `ms`, `s`) or a rate such as `records/s`. */
  readonly unit: string;
  readonly ratio: boolean;
}

/** What a `measure` function returns: both medians in `unit`. */
export interface Measured {
  readonly subject: number;
  readonly peer: number;
  /** A time unit (`ns`, `us`, `ms`, `s`) or a rate (`records/s`, `MB/s`, ...). */
  readonly unit: string;
  /** Timed samples per side. */
  readonly samples: number;
  /** Anything the reader needs to read the figures (sizes, CPU time). */
  readonly note?: string;
}

/** One budget as a bench file declares it. */
export interface BudgetSpec {
  /** Stable id, e.g. `kernel.step.10k`. */
  readonly id: string;
  /** What the subject is. */
  readonly measures: string;
  /** The in-run peer it is measured against. */
  readonly peer: string;
  /** The bound, e.g. `<= 1 us`, `>= 150000 records/s`, `<= 1.15x`. */
  readonly bound: string;
  /** Runs subject and peer interleaved; a string is a reason it could not run (a failure). */
  readonly measure: () => Promise<Measured | string> | Measured | string;
}

/** One row of the `bench:check` table. */
export interface BudgetRow {
  readonly id: string;
  readonly measures: string;
  readonly peer: string;
  readonly bound: string;
  readonly subject: number | null;
  readonly peerValue: number | null;
  readonly unit: string;
  /** subject / peer, or null when it did not run. */
  readonly ratio: number | null;
  readonly samples: number;
  readonly status: "pass" | "fail" | "error";
  readonly note: string;
}

/** Time units in nanoseconds (integers, so conversions stay exact). */
const TIME_UNITS: Record<string, number> = { ns: 1, us: 1e3, "µs": 1e3, ms: 1e6, s: 1e9 };

/**
 * Parses a bound such as `<= 1 us`, `≥ 150000 records/s`, `<= 1.15x`.
 *
 * @example
 * ```ts
 * import { parseBound } from "./_budget.ts";
 * const b = parseBound("<= 1.15x");
 * if (!b.ratio || b.value !== 1.15 || b.op !== "<=") throw new Error();
 * ```
 */
export function parseBound(text: string): Bound {
  const m = /^\s*(<=|>=|≤|≥)\s*([0-9][0-9_,]*(?:\.[0-9]+)?)\s*(x|[^\s]+)\s*$/.exec(text);
  if (m === null) throw new Error(`Cannot parse budget bound ${JSON.stringify(text)}`);
  const op: BoundOp = m[1] === "<=" || m[1] === "≤" ? "<=" : ">=";
  const value = Number(m[2]!.replace(/[_,]/g, ""));
  const unit = m[3]! === "µs" ? "us" : m[3]!;
  return { op, value, unit, ratio: unit === "x" };
}

/**
 * Converts `value` from unit `from` to unit `to`: time units convert into each
 * other, any other unit must be the same on both sides.
 *
 * @example
 * ```ts
 * import { convert } from "./_budget.ts";
 * if (convert(1500, "ns", "us") !== 1.5) throw new Error();
 * ```
 */
export function convert(value: number, from: string, to: string): number {
  if (from === to) return value;
  const f = TIME_UNITS[from];
  const t = TIME_UNITS[to];
  if (f === undefined || t === undefined) {
    throw new Error(`Cannot compare a figure in ${from} with a bound in ${to}`);
  }
  return (value * f) / t;
}

/**
 * The table row for a budget and what its measurement returned.
 *
 * @example
 * ```ts
 * import { judge } from "./_budget.ts";
 * const spec = { id: "a", measures: "m", peer: "p", bound: "<= 1.2x", measure: () => "" };
 * const row = judge(spec, { subject: 11, peer: 10, unit: "ms", samples: 5 });
 * if (row.status !== "pass" || row.ratio !== 1.1) throw new Error();
 * ```
 */
export function judge(spec: BudgetSpec, measured: Measured | string): BudgetRow {
  const bound = parseBound(spec.bound);
  const base = { id: spec.id, measures: spec.measures, peer: spec.peer, bound: spec.bound };
  if (typeof measured === "string") {
    return {
      ...base,
      subject: null,
      peerValue: null,
      unit: "",
      ratio: null,
      samples: 0,
      status: "error",
      note: measured,
    };
  }
  const ratio = measured.peer > 0 ? measured.subject / measured.peer : Number.POSITIVE_INFINITY;
  const compared = bound.ratio ? ratio : convert(measured.subject, measured.unit, bound.unit);
  const ok = Number.isFinite(compared) &&
    (bound.op === "<=" ? compared <= bound.value : compared >= bound.value);
  return {
    ...base,
    subject: measured.subject,
    peerValue: measured.peer,
    unit: measured.unit,
    ratio,
    samples: measured.samples,
    status: ok ? "pass" : "fail",
    note: measured.note ?? "",
  };
}

/**
 * The median (the lower middle for an even count).
 *
 * @example
 * ```ts
 * import { median } from "./_budget.ts";
 * if (median([3, 1, 2]) !== 2 || median([4, 1, 3, 2]) !== 2) throw new Error();
 * ```
 */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) throw new Error("median of nothing");
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
}

/** A timed function: returns nothing (the call is timed) or its own elapsed milliseconds. */
export type Timed = () => unknown;

/** Process CPU time (user + system) in ms, or 0 where the runtime has none. */
function cpuMs(): number {
  const usage = (globalThis as { Deno?: { cpuUsage?: () => { user: number; system: number } } })
    .Deno?.cpuUsage;
  if (usage !== undefined) {
    const u = usage();
    return (u.user + u.system) / 1000;
  }
  return 0;
}

async function timeOnce(fn: Timed, cpu: number[]): Promise<number> {
  const c0 = cpuMs();
  const t0 = performance.now();
  let r = fn();
  if (r instanceof Promise) r = await r;
  const t1 = performance.now();
  cpu.push(cpuMs() - c0);
  return typeof r === "number" ? r : t1 - t0;
}

/**
 * Runs `subject` and `peer` alternately (`warmup` untimed pairs, then `rounds`
 * timed pairs, the order swapped every round) and returns each side's samples
 * in milliseconds. A function that returns a number reports its own elapsed
 * milliseconds (to keep set-up out of the timed region).
 */
export async function interleaved(
  subject: Timed,
  peer: Timed,
  opts: { warmup: number; rounds: number },
): Promise<{ subject: number[]; peer: number[]; subjectCpu: number[]; peerCpu: number[] }> {
  const sc: number[] = [];
  const pc: number[] = [];
  for (let i = 0; i < opts.warmup; i++) {
    await timeOnce(subject, []);
    await timeOnce(peer, []);
  }
  const s: number[] = [];
  const p: number[] = [];
  for (let i = 0; i < opts.rounds; i++) {
    if (i % 2 === 0) {
      s.push(await timeOnce(subject, sc));
      p.push(await timeOnce(peer, pc));
    } else {
      p.push(await timeOnce(peer, pc));
      s.push(await timeOnce(subject, sc));
    }
  }
  return { subject: s, peer: p, subjectCpu: sc, peerCpu: pc };
}

/** Both sides' medians in ms, as a {@link Measured}. */
export async function interleavedMs(
  subject: Timed,
  peer: Timed,
  opts: { warmup: number; rounds: number; note?: string },
): Promise<Measured> {
  const r = await interleaved(subject, peer, opts);
  // This process's CPU time per call (children's CPU not included): a loaded
  // machine inflates wall time far more than CPU time.
  const cpu = `this process's CPU per call (median) ${median(r.subjectCpu).toFixed(1)} ms vs ${
    median(r.peerCpu).toFixed(1)
  } ms`;
  return {
    subject: median(r.subject),
    peer: median(r.peer),
    unit: "ms",
    samples: opts.rounds,
    note: opts.note === undefined ? cpu : `${opts.note}; ${cpu}`,
  };
}

function fmt(x: number | null): string {
  if (x === null) return "-";
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  return a >= 1000 ? Math.round(x).toLocaleString("en-US") : a >= 10 ? x.toFixed(1) : x.toFixed(3);
}

/** The rows as a plain-text table. */
export function formatTable(rows: readonly BudgetRow[]): string {
  const head = ["budget", "bound", "measured", "peer", "ratio", "result"];
  const body = rows.map((r) => [
    r.id,
    r.bound,
    r.subject === null ? "-" : `${fmt(r.subject)} ${r.unit}`,
    r.peerValue === null ? "-" : `${fmt(r.peerValue)} ${r.unit}`,
    r.ratio === null ? "-" : `${r.ratio.toFixed(3)}x`,
    r.status === "pass" ? "pass" : r.status === "fail" ? "FAIL" : "ERROR",
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd();
  const out = [line(head), line(widths.map((w) => "-".repeat(w))), ...body.map(line)];
  out.push("");
  for (const r of rows) {
    out.push(`${r.id}: ${r.measures}; peer: ${r.peer}${r.note === "" ? "" : `; ${r.note}`}`);
  }
  return out.join("\n");
}
