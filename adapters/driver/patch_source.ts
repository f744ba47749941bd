/**
 * Where a task's patch comes from: the port the driver asks, round by round.
 * Two sources exist. {@linkcode agentWorktree}: an agent backend edits a
 * disposable worktree of the base and the round's patch is the worktree's real
 * diff (`vouch run`). {@linkcode suppliedPatch}: the patch is bytes from
 * anywhere (`vouch verify`, `vouch batch`), judged as stated; nothing is
 * checked out for it. The kernel's lifecycle is the same for both (worktree,
 * backend round, extraction, scope, clean verification); only the source's
 * answers differ.
 *
 * @module
 */
import { changedPaths } from "../../kernel/diff/changed_paths.ts";
import { tryParseGitDiff } from "../../kernel/diff/parse.ts";
import type { GitDiff } from "../../kernel/diff/types.ts";
import type {
  AgentBackend,
  AgentTask,
  BackendEvent,
  BackendFailure,
  BackendResult,
  BackendStart,
} from "../backends/types.ts";
import { sha256Hex } from "../digest/sha256.ts";
import { applyPatch } from "../git/apply_patch.ts";
import {
  diffOutsideSnapshots,
  type OutsideScope,
  snapshotOutside,
} from "../verification/outside_writes.ts";
import { extractDiff, worktreeGitArgs } from "../worktree/extract_diff.ts";
import { createWorktree, removeWorktree, type Worktree } from "../worktree/worktree.ts";

/** The task a source opens its workspace for. */
export interface SourceTask {
  /** Top level of the user's repository. */
  readonly repo: string;
  /** Full commit id of the base. */
  readonly base: string;
  /** Task id (file-name safe). */
  readonly taskId: string;
}

/** One round asked of a source: the agent's task, its cancel signal and its event sink. */
export interface SourceRound {
  /** The round's task as an agent backend gets it. */
  readonly task: AgentTask;
  /** Aborted on cancellation or when the wall-time budget runs out. */
  readonly signal: AbortSignal;
  /** Where the round's transcript goes. */
  readonly transcriptDir: string;
  /** Told every event the agent emits (must not throw). */
  emit(event: BackendEvent): void;
}

/** What a round produced, before its patch is read. */
export interface ProducedRound {
  /** The backend's report (a claim), or `null` when no backend ran (supplied bytes). */
  readonly claim: BackendResult | null;
  /** Writes outside the worktree seen during the round (judged with the patch). */
  readonly outside: readonly string[];
}

/** The round's patch, as the scope check and the clean verification get it. */
export interface RoundPatch {
  /** The patch bytes (`git diff --binary` format). */
  readonly bytes: Uint8Array;
  /** `sha256:<hex>` of `bytes`. */
  readonly digest: string;
  /** The paths it changes. */
  readonly files: readonly string[];
  /** Its parsed diff, when the source parsed it (else the scope check parses it once). */
  readonly diff: GitDiff | null;
  /** How many changes it counts for the kernel (an unparsable supplied patch counts as one). */
  readonly changes: number;
}

/** Where a task's patch comes from. */
export interface PatchSource {
  /** Named in progress lines and in the VerifiedPatch (`backend`). */
  readonly id: string;
  /** What an empty round is said to be ("the backend changed no file"). */
  readonly emptyDetail: string;
  /**
   * Opens the task's workspace and returns its path (the kernel's `worktree`),
   * or `null` when nothing is checked out. Throws when it cannot be created.
   */
  open(task: SourceTask): Promise<string | null>;
  /**
   * Starts the agent in the opened workspace before the baseline (the
   * kernel's `start_backend`); why it cannot start, or null. Absent: nothing
   * to start (supplied bytes, a backend that starts with each round).
   */
  start?(
    task: BackendStart,
    signal: AbortSignal,
    step?: (text: string) => void,
  ): Promise<BackendFailure | null>;
  /** Produces one round's work. */
  produce(round: SourceRound): Promise<ProducedRound>;
  /** The last round's patch, or `null` when its workspace is gone. Throws when it cannot be read. */
  patch(): Promise<RoundPatch | null>;
  /** Ends what the source kept for a next round (an agent session). Never throws. */
  endTask(taskId: string): Promise<void>;
  /** Removes the workspace (idempotent). Never throws. */
  close(): Promise<void>;
}

/** A source of supplied bytes, with the digest of its patch (hashed once). */
export interface SuppliedPatchSource extends PatchSource {
  /** The patch's digest (`sha256:<hex>`), the same as its round patch's. */
  readonly digest: string;
}

/**
 * A patch supplied as bytes: judged as stated, its changed paths as the strict
 * parser reads them (`changedPaths`). The clean verification applies it with
 * git and refuses any path git changes that the patch does not name
 * (`judgeAppliedPatch`).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { suppliedPatch } from "./patch_source.ts";
 * const source = suppliedPatch(new Uint8Array(), "patch");
 * equal(await source.open({ repo: "/r", base: "0".repeat(40), taskId: "t" }), null);
 * equal((await source.produce({} as never)).claim, null);
 * equal((await source.patch())?.changes, 0);
 * equal(source.digest, (await source.patch())?.digest);
 * ```
 */
export function suppliedPatch(bytes: Uint8Array, id: string): SuppliedPatchSource {
  const digest = sha256Hex(bytes);
  const parsed = tryParseGitDiff(bytes);
  const changed = parsed.ok ? changedPaths(parsed.diff) : [];
  const patch: RoundPatch = {
    bytes,
    digest,
    files: changed.map((c) => c.path),
    diff: parsed.ok ? parsed.diff : null,
    // A patch the parser refuses still reaches the scope check, which rejects it.
    changes: bytes.length === 0 ? 0 : Math.max(1, changed.length),
  };
  return {
    id,
    digest,
    emptyDetail: "the patch changes no file (it is empty)",
    open: () => Promise.resolve(null),
    produce: () => Promise.resolve({ claim: null, outside: [] }),
    patch: () => Promise.resolve(patch),
    endTask: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

/** Options of {@linkcode agentWorktree}. */
export interface AgentWorktreeOptions {
  /** Where worktrees live. @default the worktree module's default root */
  readonly root?: string;
}

/**
 * An agent backend working in a disposable worktree of the base: the round's
 * patch is the worktree's real diff; the user's checkout and the worktree's
 * container are watched for writes outside it. A patch the backend hands over
 * as text (the `fn` backend) is the round's patch as stated, and is applied in
 * the worktree by git itself (no --unsafe-paths) so the worktree shows what it
 * does; a patch git refuses is refused again, with git's error, by the clean
 * verification.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { fnBackend } from "../backends/fn_backend.ts";
 * import { agentWorktree } from "./patch_source.ts";
 * const source = agentWorktree(fnBackend("idle", () => Promise.resolve({})));
 * equal(source.id, "idle");
 * equal(await source.patch(), null); // no worktree yet
 * ```
 */
export function agentWorktree(backend: AgentBackend, opts: AgentWorktreeOptions = {}): PatchSource {
  return new AgentWorktree(backend, opts.root);
}

/**
 * The agent's source: the backend, the worktree it edits once opened, and what
 * a round leaves for the next step (a handed-over patch, the early outside snapshot).
 */
class AgentWorktree implements PatchSource {
  readonly id: string;
  readonly emptyDetail = "the backend changed no file";
  readonly start?: NonNullable<PatchSource["start"]>;
  readonly #backend: AgentBackend;
  readonly #root: string | undefined;
  #worktree: Worktree | null = null;
  #checkout: string | null = null;
  #handed: Uint8Array | null = null;
  /** The outside snapshot taken when the agent was started ahead of round 1. */
  #early: Awaited<ReturnType<typeof snapshotOutside>> | null = null;

  constructor(backend: AgentBackend, root: string | undefined) {
    this.id = backend.id;
    this.#backend = backend;
    this.#root = root;
    if (backend.startTask !== undefined) {
      this.start = (task, signal, step) => this.#start(task, signal, step);
    }
  }

  async open(task: SourceTask): Promise<string | null> {
    this.#checkout = task.repo;
    this.#worktree = await createWorktree({
      repo: task.repo,
      taskId: task.taskId,
      attempt: 1,
      base: task.base,
      ...(this.#root !== undefined ? { root: this.#root } : {}),
    });
    return this.#worktree.path;
  }

  async #start(
    task: BackendStart,
    signal: AbortSignal,
    step?: (text: string) => void,
  ): Promise<BackendFailure | null> {
    // The agent lives from now on: what it writes outside is judged from here, not
    // from round 1's start (it could write while the baseline runs).
    this.#early = await snapshotOutside(outsideScope(this.#checkout, this.#worktree));
    return await this.#backend.startTask!(task, signal, step);
  }

  async produce(round: SourceRound): Promise<ProducedRound> {
    this.#handed = null;
    const scope = outsideScope(this.#checkout, this.#worktree);
    const before = this.#early ?? await snapshotOutside(scope);
    this.#early = null;
    const claim = await this.#backend.run(round.task, {
      signal: round.signal,
      emit: round.emit,
      transcriptDir: round.transcriptDir,
    });
    if (claim.patchText !== undefined && claim.patchText.length > 0) {
      this.#handed = claim.patchText;
      if (this.#worktree !== null) await applyPatchText(this.#worktree, claim.patchText);
    }
    // Outside-worktree writes are judged with the patch (scope), never trusted away.
    return { claim, outside: diffOutsideSnapshots(before, await snapshotOutside(scope)) };
  }

  async patch(): Promise<RoundPatch | null> {
    if (this.#worktree === null) return null;
    const diff = await extractDiff(this.#worktree);
    const files = diff.changed.map((c) => c.path);
    const handed = this.#handed;
    if (handed === null) {
      return { bytes: diff.bytes, digest: diff.digest, files, diff: null, changes: files.length };
    }
    return {
      bytes: handed,
      digest: sha256Hex(handed),
      files,
      diff: null,
      changes: Math.max(1, files.length),
    };
  }

  endTask(taskId: string): Promise<void> {
    return this.#backend.endTask?.(taskId).catch(() => {}) ?? Promise.resolve();
  }

  async close(): Promise<void> {
    const wt = this.#worktree;
    this.#worktree = null;
    if (wt !== null) await removeWorktree(wt).catch(() => {});
  }
}

/** The user's checkout (judged by content) and the worktree's container minus the worktree. */
function outsideScope(checkout: string | null, wt: Worktree | null): OutsideScope {
  const trees = [];
  if (wt !== null) {
    const rel = wt.path.startsWith(wt.container + "/")
      ? wt.path.slice(wt.container.length + 1)
      : "";
    trees.push({ root: wt.container, skip: rel === "" ? [] : [rel] });
  }
  return { checkout, trees };
}

/** Applies patch bytes a backend handed over as text, with plain `git apply` (no --unsafe-paths). */
async function applyPatchText(wt: Worktree, patch: Uint8Array): Promise<boolean> {
  const tree = { cwd: wt.path, gitArgs: worktreeGitArgs(wt), timeoutMs: 60_000 };
  return (await applyPatch(tree, patch, "worktree")).ok;
}
