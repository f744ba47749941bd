/**
 * Planning a batch: every prediction becomes a candidate with a stable id
 * (`instance_id`, or `instance_id@model_name_or_path` when an instance has
 * several predictions), and `--shard I/N` keeps a deterministic slice: the
 * candidates sorted by id, every N-th from the I-th. Pure.
 *
 * @module
 */
import type { BatchTask } from "./input.ts";
import type { Prediction } from "./schema.ts";

/** One prediction to judge. */
export interface PlannedCandidate {
  /** Candidate id (what the report's id lists name). */
  readonly id: string;
  /** SWE-bench's instance id (a task id). */
  readonly instance_id: string;
  /** The model that made it. */
  readonly model_name_or_path: string;
  /** The patch text (`""` for an empty patch). */
  readonly patch: string;
  /** Its task, or `null` when no task has that id. */
  readonly task: BatchTask | null;
}

/** A slice of a batch: the `index`-th (1-based) of `count`. */
export interface Shard {
  /** Which slice, from 1. */
  readonly index: number;
  /** How many slices. */
  readonly count: number;
}

/**
 * Parses `I/N` (1 ≤ I ≤ N), or returns `null`.
 *
 * @example
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
 * import { parseShard } from "./plan.ts";
 * deepEqual(parseShard("2/3"), { index: 2, count: 3 });
 * equal(parseShard("0/3"), null);
 * equal(parseShard("4/3"), null);
 * ```
 */
export function parseShard(text: string): Shard | null {
  const m = /^([1-9][0-9]{0,5})\/([1-9][0-9]{0,5})$/.exec(text);
  if (!m) return null;
  const index = Number(m[1]);
  const count = Number(m[2]);
  return index <= count ? { index, count } : null;
}

/**
 * The candidates of a batch, sorted by id.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { planCandidates } from "./plan.ts";
 * const p = (instance_id: string, model_name_or_path: string) => ({ instance_id, model_name_or_path, model_patch: "" });
 * deepEqual(planCandidates([], [p("b", "m"), p("a", "m"), p("a", "n")]).map((c) => c.id), ["a@m", "a@n", "b"]);
 * ```
 */
export function planCandidates(
  tasks: readonly BatchTask[],
  predictions: readonly Prediction[],
): PlannedCandidate[] {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const perInstance = new Map<string, number>();
  for (const p of predictions) {
    perInstance.set(p.instance_id, (perInstance.get(p.instance_id) ?? 0) + 1);
  }
  const out = predictions.map((p): PlannedCandidate => ({
    id: perInstance.get(p.instance_id)! > 1
      ? `${p.instance_id}@${p.model_name_or_path}`
      : p.instance_id,
    instance_id: p.instance_id,
    model_name_or_path: p.model_name_or_path,
    patch: p.model_patch ?? "",
    task: byId.get(p.instance_id) ?? null,
  }));
  return out.sort((a, b) => a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * The shard's slice of sorted candidates (all of them without a shard).
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { inShard } from "./plan.ts";
 * deepEqual(inShard([1, 2, 3, 4, 5], { index: 2, count: 2 }), [2, 4]);
 * ```
 */
export function inShard<T>(sorted: readonly T[], shard: Shard | null): T[] {
  if (shard === null) return [...sorted];
  return sorted.filter((_, i) => i % shard.count === shard.index - 1);
}
