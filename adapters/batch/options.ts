/**
 * How candidates are judged: the options preparing a task and judging its
 * candidates share (a local batch and a queue worker alike).
 *
 * @module
 */
import type { KeyEnv } from "../keys/paths.ts";
import { probeSandbox, type SandboxProbe, type SandboxRequirement } from "../host/sandbox_probe.ts";
import { createDependencySnapshots } from "../deps/shared.ts";
import { type CheckSlots, createCheckSlots } from "../verification/check_slots.ts";
import { type CleanTreePool, createCleanTreePool } from "../worktree/tree_pool.ts";

/** How candidates are verified (`vouch batch`, a queue worker). */
export interface VerifyCandidateOptions {
  /** The output directory: `candidates/<key>/` and `tasks/<id>/` live under it. */
  readonly outDir: string;
  /** Sandbox requirement for every check. @default "auto" */
  readonly sandbox?: SandboxRequirement;
  /** Paths outside the tree the checks need, read-only in their sandbox (`--sandbox-ro`). */
  readonly sandboxReadOnly?: readonly string[];
  /** Where clean trees are made (default: the worktree module's). */
  readonly worktreeRoot?: string;
  /** Key locations (tests). */
  readonly keyEnv?: KeyEnv;
  /**
   * How candidates' clean trees get the user's installed dependency
   * directories: `shared` snapshots each once per batch and binds it read-only
   * into every tree (bwrap; `--sandbox none` copies anyway), `copy` gives each
   * tree a private copy. @default "shared"
   */
  readonly dependencies?: "shared" | "copy";
  /**
   * Tests are editable for every task (`vouch batch --tests-editable`): a
   * candidate that touches test files is graded against its own tests only,
   * and its record says so. @default each task contract's `testsEditable`, else false
   */
  readonly testsEditable?: boolean;
}

/**
 * {@linkcode VerifyCandidateOptions} with what one batch (or queue worker) shares across its
 * verifications (internal: the executors make them, see {@linkcode batchResources}).
 */
export interface SharedCandidateOptions extends VerifyCandidateOptions {
  /**
   * Clean trees reused across the candidates (and the shared baseline) of a
   * base commit instead of one checkout each; `localExecutor` makes one per batch.
   */
  readonly treePool?: CleanTreePool;
  /** One sandbox probe for the whole batch (the executors make one). */
  readonly sandboxProbe?: Promise<SandboxProbe>;
  /**
   * At most this many candidates' (or baselines') commands run at once; the
   * executors make `concurrency` slots and let as many more verifications
   * prepare their trees meanwhile. @default no limit
   */
  readonly checkSlots?: CheckSlots;
}

/**
 * What the verification path takes from {@linkcode VerifyCandidateOptions} (unset ones left out).
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { verificationOptions } from "./options.ts";
 * deepEqual(verificationOptions({ outDir: "out" }), { sandbox: "auto" });
 * ```
 */
export function verificationOptions(opts: SharedCandidateOptions): {
  readonly sandbox: SandboxRequirement;
  readonly sandboxReadOnly?: readonly string[];
  readonly worktreeRoot?: string;
  readonly keyEnv?: KeyEnv;
  readonly treePool?: CleanTreePool;
  readonly sandboxProbe?: Promise<SandboxProbe>;
  readonly checkSlots?: CheckSlots;
  readonly testsEditable?: boolean;
} {
  return {
    sandbox: opts.sandbox ?? "auto",
    ...(opts.sandboxReadOnly !== undefined && opts.sandboxReadOnly.length > 0
      ? { sandboxReadOnly: opts.sandboxReadOnly }
      : {}),
    ...(opts.worktreeRoot !== undefined ? { worktreeRoot: opts.worktreeRoot } : {}),
    ...(opts.keyEnv !== undefined ? { keyEnv: opts.keyEnv } : {}),
    ...(opts.treePool !== undefined ? { treePool: opts.treePool } : {}),
    ...(opts.sandboxProbe !== undefined ? { sandboxProbe: opts.sandboxProbe } : {}),
    ...(opts.checkSlots !== undefined ? { checkSlots: opts.checkSlots } : {}),
    ...(opts.testsEditable === true ? { testsEditable: true } : {}),
  };
}

/**
 * What one batch (or one queue worker) shares across its verifications: a
 * pool of clean trees per base (with the dependency snapshots, unless
 * `dependencies: "copy"`) and one sandbox probe. `close()` removes what was
 * made here (a pool the caller gave is the caller's).
 *
 * @example
 * ```ts
 * import { equal, ok } from "node:assert/strict";
 * import { batchResources } from "./options.ts";
 * const shared = batchResources({ outDir: "out", sandbox: "none" }, 2);
 * ok(shared.opts.treePool?.dependencies !== undefined);
 * equal(shared.opts.sandboxProbe, undefined);
 * await shared.close();
 * ```
 */
export function batchResources(
  given: SharedCandidateOptions,
  concurrency: number,
): { readonly opts: SharedCandidateOptions; close(): Promise<void> } {
  const dependencies = (given.dependencies ?? "shared") === "shared"
    ? { dependencies: createDependencySnapshots() }
    : {};
  // Every verification in flight holds a tree: the ones running checks and as many preparing.
  const pool = given.treePool ??
    createCleanTreePool(Math.max(1, inFlight(concurrency)), dependencies);
  const probe = given.sandboxProbe ??
    ((given.sandbox ?? "auto") === "none" ? undefined : probeSandbox());
  return {
    opts: {
      ...given,
      treePool: pool,
      checkSlots: given.checkSlots ?? createCheckSlots(concurrency),
      ...(probe !== undefined ? { sandboxProbe: probe } : {}),
    },
    async close() {
      if (given.treePool === undefined) await pool.drain();
    },
  };
}

/**
 * How many verifications a batch keeps in flight for `concurrency` check
 * slots: twice as many, so a slot never waits on git (reset, apply, scope) or
 * on writing a verdict, only on a check.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { inFlight } from "./options.ts";
 * equal(inFlight(2), 4);
 * equal(inFlight(0), 2);
 * ```
 */
export function inFlight(concurrency: number): number {
  return 2 * Math.max(1, concurrency);
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
