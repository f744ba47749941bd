/**
 * How candidates are judged: the options preparing a task and judging its
 * candidates share (a local batch and a queue worker alike).
 *
 * @module
 */
import type { KeyEnv } from "../keys/paths.ts";
import type { SandboxRequirement } from "../host/sandbox_probe.ts";
import type { CleanTreePool } from "../worktree/tree_pool.ts";

/** How candidates are judged. */
export interface JudgeOptions {
  /** The output directory: `candidates/<key>/` and `tasks/<id>/` live under it. */
  readonly outDir: string;
  /** Sandbox requirement for every check. @default "auto" */
  readonly sandbox?: SandboxRequirement;
  /** Where clean trees are made (default: the worktree module's). */
  readonly worktreeRoot?: string;
  /** Key locations (tests). */
  readonly keyEnv?: KeyEnv;
  /**
   * Clean trees reused across the candidates (and the shared baseline) of a
   * base commit instead of one checkout each; `localExecutor` makes one per batch.
   */
  readonly treePool?: CleanTreePool;
}

/**
 * What the verification path takes from {@linkcode JudgeOptions} (unset ones left out).
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { verificationOptions } from "./options.ts";
 * deepEqual(verificationOptions({ outDir: "out" }), { sandbox: "auto" });
 * ```
 */
export function verificationOptions(opts: JudgeOptions): {
  readonly sandbox: SandboxRequirement;
  readonly worktreeRoot?: string;
  readonly keyEnv?: KeyEnv;
  readonly treePool?: CleanTreePool;
} {
  return {
    sandbox: opts.sandbox ?? "auto",
    ...(opts.worktreeRoot !== undefined ? { worktreeRoot: opts.worktreeRoot } : {}),
    ...(opts.keyEnv !== undefined ? { keyEnv: opts.keyEnv } : {}),
    ...(opts.treePool !== undefined ? { treePool: opts.treePool } : {}),
  };
}

/**
 * A thrown value as one line.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { errorMessage } from "./options.ts";
 * equal(errorMessage(new Error("boom")), "boom");
 * equal(errorMessage("plain"), "plain");
 * ```
 */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
