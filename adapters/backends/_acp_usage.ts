/**
 * A round's token and cost usage as an ACP agent reports it: in its
 * `session/prompt` answer (ACP `usage`, or gemini-cli's
 * `_meta.quota.token_count`) and in its `usage_update` notifications.
 *
 * @module
 */
import type { BackendUsage } from "./types.ts";

/** Token counts of a `session/prompt` answer (ACP `Usage`). */
export interface PromptUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedReadTokens?: number | null;
  readonly cachedWriteTokens?: number | null;
  readonly thoughtTokens?: number | null;
}

const count = (n: number | null | undefined): number | undefined =>
  typeof n === "number" && Number.isFinite(n) && n >= 0 ? Math.floor(n) : undefined;

/**
 * A round's usage: the tokens of the `session/prompt` answer when the agent
 * reports them, else the context tokens of its last `usage_update` as input;
 * the cost (USD) of the last `usage_update`.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { acpUsage } from "./_acp_usage.ts";
 * deepEqual(acpUsage(null, { used: 1200, size: 200000, costUsd: 0.05 }), { inputTokens: 1200, costUsd: 0.05 });
 * deepEqual(acpUsage({ inputTokens: 10, outputTokens: 5, thoughtTokens: 2 }, undefined), { inputTokens: 10, outputTokens: 5, reasoningOutputTokens: 2 });
 * deepEqual(acpUsage(null, undefined), {});
 * ```
 */
export function acpUsage(
  prompt: PromptUsage | null,
  update: { used: number; size: number; costUsd?: number } | undefined,
): BackendUsage {
  const out: Record<string, number> = {};
  const set = (k: keyof BackendUsage, v: number | undefined) => {
    if (v !== undefined) out[k] = v;
  };
  if (prompt !== null) {
    set("inputTokens", count(prompt.inputTokens));
    set("cachedInputTokens", count(prompt.cachedReadTokens));
    set("cacheWriteInputTokens", count(prompt.cachedWriteTokens));
    set("outputTokens", count(prompt.outputTokens));
    set("reasoningOutputTokens", count(prompt.thoughtTokens));
  } else if (update !== undefined) {
    set("inputTokens", count(update.used));
  }
  if (update?.costUsd !== undefined) out["costUsd"] = update.costUsd;
  return out as BackendUsage;
}

const rec = (v: unknown): Record<string, unknown> | null =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? v as Record<string, unknown> : null;

/**
 * The token counts of a `session/prompt` answer: ACP's `usage`, else gemini-cli's
 * `_meta.quota.token_count` (`input_tokens`, `output_tokens`; it sends no `usage_update`),
 * else null.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { promptUsageOf } from "./_acp_usage.ts";
 * deepEqual(promptUsageOf({ _meta: { quota: { token_count: { input_tokens: 240, output_tokens: 24 } } } }), { inputTokens: 240, outputTokens: 24 });
 * deepEqual(promptUsageOf({ usage: { inputTokens: 1, outputTokens: 2 } }), { inputTokens: 1, outputTokens: 2 });
 * deepEqual(promptUsageOf({ _meta: { quota: "x" } }), null);
 * ```
 */
export function promptUsageOf(
  answer: { readonly usage?: PromptUsage | null; readonly _meta?: unknown },
): PromptUsage | null {
  if (answer.usage !== undefined && answer.usage !== null) return answer.usage;
  const tokens = rec(rec(rec(answer._meta)?.["quota"])?.["token_count"]);
  const input = tokens?.["input_tokens"];
  const output = tokens?.["output_tokens"];
  if (typeof input !== "number" || typeof output !== "number") return null;
  return { inputTokens: input, outputTokens: output };
}
