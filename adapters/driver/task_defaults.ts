/**
 * What every task starts from, whichever entry starts it (`vouch run`,
 * `vouch verify`, `vouch batch`): a fresh task id, and the paths a patch may
 * never touch unless explicitly allowed.
 *
 * @module
 */
import { DEFAULT_FORBID_RULES } from "../../kernel/scope/default_forbid.ts";

/**
 * Paths a patch may never touch unless explicitly allowed: CI and git-hook
 * configuration (the oracle set's list), installed dependencies
 * (`**\/node_modules/**`), Python bytecode (`**\/__pycache__/**`, `*.pyc`,
 * `*.pyo`), vouch's state and git's own directory. Each glob's reason is
 * `defaultForbidReason(glob)` (`kernel/scope/default_forbid.ts`).
 */
export const DEFAULT_FORBID: readonly string[] = DEFAULT_FORBID_RULES.map((r) => r.glob);

/**
 * A fresh, file-name-safe task id: `t-YYYYMMDD-HHMMSS-xxxx`.
 *
 * @example
 * ```ts
 * import { match } from "node:assert/strict";
 * import { newTaskId } from "./task_defaults.ts";
 * match(newTaskId(new Date("2026-01-02T03:04:05Z")), /^t-20260102-030405-[0-9a-f]{4}$/);
 * ```
 */
export function newTaskId(now = new Date()): string {
  const iso = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  const rand = Array.from(
    crypto.getRandomValues(new Uint8Array(2)),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
  return `t-${iso}-${rand}`;
}
