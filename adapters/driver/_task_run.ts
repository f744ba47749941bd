/**
 * The state of one task's run as the driver's action handlers share it: the
 * kernel state (stepped only through {@linkcode TaskRun.feed}), what the
 * adapters produced (rounds, verification runs, the minted patch)
 * and live progress. Nothing here decides: the kernel does.
 *
 * @module
 */
import type { BackendFailure, BackendResult } from "../backends/types.ts";
import type { KernelAction } from "../../kernel/lifecycle/actions.ts";
import type { KernelEvent } from "../../kernel/lifecycle/events.ts";
import { defaultPolicy } from "../../kernel/lifecycle/policy.ts";
import type { PolicySnapshot } from "../../kernel/lifecycle/policy_types.ts";
import type { KernelState, TaskRecord } from "../../kernel/lifecycle/state.ts";
import { initialKernelState, step } from "../../kernel/lifecycle/step.ts";
import { ENTRY } from "../../kernel/lifecycle/transitions.ts";
import { roundEnding } from "../../kernel/lifecycle/outcome.ts";
import { recordKernelInit, recordKernelStep } from "../log/kinds.ts";
import { KERNEL_LIFECYCLE_VERSION } from "../../kernel/lifecycle/version.ts";
import type { VerificationRun } from "../verification/verifier.ts";
import type { GitDiff } from "../../kernel/diff/types.ts";
import type { PatchViolation } from "../../kernel/scope/judge_patch.ts";
import type { VerifiedPatch } from "../verified_patch/verified_patch.ts";
import type { RunTaskOptions } from "./task_options.ts";

/**
 * The evidence of one backend round, as the adapters produced it: the
 * backend's claim, the patch, the scope check's violations, the clean
 * verification. Its verdict is the kernel's (`ended`, taken from the task
 * record when the kernel ends the round); its reasons and details are read
 * from the evidence (`_round_words.ts`). Nothing here decides.
 */
export interface RoundState {
  /** 1-based. */
  readonly round: number;
  backend: BackendResult | null;
  patch: Uint8Array | null;
  /**
   * The patch's parsed diff: parsed once per round (by the scope check, or by
   * the source for supplied bytes) and carried to the clean verification.
   */
  diff: GitDiff | null;
  patchDigest: string | null;
  files: string[];
  /** The patch could not be read from its source (`extract_failed`). */
  extractFailed: boolean;
  /** Changes the kernel was told (the patch's and writes outside the worktree), once extracted. */
  changes: number | null;
  /** The scope check's violations. */
  violations: PatchViolation[];
  /** The sensitive class the kernel's policy denied, when it did. */
  denied: string | null;
  /** The sensitive classes the scope check found the patch touching. */
  sensitive: string[];
  /** The clean verification of this round's patch, once it ran. */
  run: VerificationRun | null;
  /** How the kernel ended the round (`null`: it did not judge it). */
  ended: "verified" | "rejected" | null;
}

/** `Omit` that distributes over a union. */
export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** An event as a handler writes it (the run stamps `v`, `id`, `seq`, `at`). */
export type EventBody = DistributiveOmit<KernelEvent, "v" | "id" | "seq" | "at">;

/** One task's run. */
export class TaskRun {
  readonly o: RunTaskOptions;
  readonly now: () => number;
  readonly startedAt: number;
  readonly policy: PolicySnapshot;
  state: KernelState;
  /** The task's kernel record (kept when the kernel compacts the finished task away). */
  record: TaskRecord | null = null;
  readonly queue: KernelAction[] = [];
  readonly rounds: RoundState[] = [];
  baseline: VerificationRun | null = null;
  verified: VerifiedPatch | null = null;
  patchFile: string | null = null;
  integrated: { branch: string; commit: string } | null = null;
  /** The in-flight effect that can be cancelled. */
  running: { effectId: string; controller: AbortController } | null = null;
  /** Whether a kill was requested (by the user or because the task cannot go on). */
  killRequested = false;
  /** Why an effect could not be performed (`effect_failed`'s code), for the message. */
  effectError: string | null = null;
  /** The stable code of that failure (`effect_failed.error`). */
  effectCode: string | null = null;
  /** Why the backend could not start before the baseline (`start_backend`), or null. */
  startFailure: BackendFailure | null = null;
  /** Writes outside the worktree seen in the current round (judged with the patch). */
  outside: string[] = [];
  phase = "setup";
  check: string | null = null;

  constructor(opts: RunTaskOptions) {
    this.o = opts;
    this.now = opts.now ?? Date.now;
    this.startedAt = this.now();
    const base = defaultPolicy();
    // Without an integration request nothing may land: the verified patch is the result.
    this.policy = opts.integrate === undefined ? { ...base, profile: "readonly" } : base;
    this.state = initialKernelState(this.policy);
  }

  /**
   * Removes the source's workspace once nothing runs in it; never throws. With
   * `treeRemoval: "after_return"` the caller does not wait: it finishes after
   * the verdict is reported.
   */
  releaseTrees(): Promise<void> {
    return this.o.source.close().catch(() => {});
  }

  /** Reports live progress. */
  progress(phase: string, detail?: string): void {
    this.phase = phase;
    this.o.onProgress?.({
      phase,
      round: this.rounds.length,
      check: this.check,
      elapsedMs: this.now() - this.startedAt,
      ...(detail !== undefined ? { detail } : {}),
    });
  }

  /**
   * Steps the kernel with one event, records the pair in the log, queues the
   * actions. Before the task's first event (`task_submitted`) the log records
   * the configuration the kernel is stepped with (the policy, the lifecycle's
   * version). `at` is the event's time when the caller read it already (the
   * submission: its budget was worked out from that reading); else now.
   */
  async feed(event: EventBody, at?: number): Promise<void> {
    if (
      this.o.signal?.aborted === true && !this.killRequested &&
      event.kind !== "kill_requested" && event.kind !== "task_submitted"
    ) {
      // The user's Ctrl-C came before this result: the kernel hears the kill first (the
      // result of the effect it cancels is then stale).
      await this.kill("user");
    }
    const record = this.record;
    if (
      record !== null && event.kind !== "timer_tick" && event.kind !== "kill_requested" &&
      ENTRY[record.status].resumeAs !== null && this.now() > record.deadlineAt
    ) {
      // The wall budget ran out before this result arrived: the kernel hears the time first
      // (it pauses the task and cancels the effect; the result is then stale).
      await this.feed({ kind: "timer_tick", taskId: this.o.taskId });
    }
    if (event.kind === "task_submitted") {
      await recordKernelInit(this.o.log, this.policy as unknown as never, KERNEL_LIFECYCLE_VERSION);
    }
    const seq = this.o.log.head.seq + 1;
    const full = {
      v: 1,
      id: `${this.o.taskId}:${seq}`,
      seq,
      at: at ?? this.now(),
      ...event,
    } as KernelEvent;
    const { state, actions } = step(this.state, full);
    this.state = state;
    if (this.record === null && full.kind === "task_submitted") {
      this.record = state.tasks[this.o.taskId] ?? null;
    }
    // The kernel's word on the current round, once it says it.
    const round = this.currentRound();
    if (round !== null && round.ended === null && this.record !== null) {
      round.ended = roundEnding(this.record, round.round);
    }
    await recordKernelStep(this.o.log, full, actions);
    this.queue.push(...actions);
  }

  /** Asks the kernel to stop the task (once). */
  async kill(by: string): Promise<void> {
    if (this.killRequested) return;
    this.killRequested = true;
    this.running?.controller.abort();
    await this.feed({ kind: "kill_requested", taskId: this.o.taskId, by });
  }

  /** The round the backend is working on (the last one). */
  currentRound(): RoundState | null {
    return this.rounds.at(-1) ?? null;
  }

  /** Milliseconds the task's wall-time budget has left (at least 1). */
  remainingMs(): number {
    return Math.max(1, (this.record?.deadlineAt ?? this.now()) - this.now());
  }
}
