/**
 * THE loop: feeds kernel events, performs the actions `step` returns through
 * the adapters, feeds the results back, and records every event/actions pair in
 * the event log before acting on it. The kernel decides; this file only acts.
 *
 * Flow: baseline on the clean base revision first (so a contract that cannot
 * run or gates nothing is refused before any agent time is spent), then
 * backend rounds: run, extract the real diff, inspect it (scope, protected
 * paths, sensitive classes, writes outside the worktree), re-verify in a clean
 * tree; on failure the failing checks' names and output tails become the next
 * round's prompt. Ends in exactly one of the explicit final states.
 *
 * @module
 */
import { mkdir, writeFile } from "node:fs/promises";
import type { AgentBackend, BackendEvent, BackendResult } from "../backends/types.ts";
import { defaultPolicy } from "../../kernel/lifecycle/policy.ts";
import type { PolicySnapshot } from "../../kernel/lifecycle/policy_types.ts";
import { initialKernelState, step } from "../../kernel/lifecycle/step.ts";
import type { KernelAction } from "../../kernel/lifecycle/actions.ts";
import type { KernelEvent, TaskBudget } from "../../kernel/lifecycle/events.ts";
import type { KernelState } from "../../kernel/lifecycle/state.ts";
import { sha256Hex } from "../digest/sha256.ts";
import { canonicalDigest } from "../canonical_json/canonical_json.ts";
import { EventLog } from "../log/store.ts";
import { LOG_KINDS, recordKernelInit, recordKernelStep } from "../log/kinds.ts";
import { KERNEL_LIFECYCLE_VERSION } from "../../kernel/lifecycle/version.ts";
import type { MacKey } from "../keys/mac_key.ts";
import type { SigningKey } from "../keys/signing_key.ts";
import { attestVerifiedPatch } from "../attest/attest.ts";
import { integrate, type IntegrationOps } from "../verified_patch/capabilities.ts";
import { mintVerifiedPatch, type VerifiedPatch } from "../verified_patch/verified_patch.ts";
import { createWorktree, removeWorktree, type Worktree } from "../worktree/worktree.ts";
import { extractDiff, worktreeGitArgs } from "../worktree/extract_diff.ts";
import { maskSecrets } from "../backends/transcript.ts";
import {
  diffOutsideSnapshots,
  type OutsideScope,
  snapshotOutside,
} from "../verification/outside_watch.ts";
import { judgePatch, patchRulesFromLists } from "../../kernel/scope/judge_patch.ts";
import { applyPatch } from "../git/apply_patch.ts";
import type {
  CheckSummary,
  RoundSummary,
  RunFinalState,
  RunOutcome,
  RunProgress,
} from "./outcome.ts";
import { RUN_EXIT_CODES } from "./outcome.ts";
import { violationDetail } from "../verification/check_detail.ts";
import type { VerificationRun, Verifier } from "../verification/verifier.ts";
import { roundPrompt } from "./round_prompt.ts";

/** Integration request: commit the verified patch on a new branch, after approval. */
export interface IntegrateRequest {
  /** New branch name. */
  readonly branch: string;
  /** Asks the human; resolves true to approve. `--yes` passes `() => true`. */
  approve(question: ApprovalQuestion): Promise<boolean>;
  /** Who approves (recorded). */
  readonly approver: string;
  /** The git side of integration. */
  readonly ops: IntegrationOps;
}

/** What the human is asked before integration. */
export interface ApprovalQuestion {
  readonly task: string;
  readonly branch: string;
  readonly patchDigest: string;
  readonly files: readonly string[];
  readonly sensitive: readonly string[];
  readonly reasons: readonly string[];
}

/** Everything `runTask` needs. Paths are absolute. */
export interface RunTaskOptions {
  /** Top level of the user's repository. */
  readonly repo: string;
  /** Full commit id of the base. */
  readonly base: string;
  /** The goal for the backend. */
  readonly goal: string;
  /** The backend. */
  readonly backend: AgentBackend;
  /** Clean verification (baseline + re-verification). */
  readonly verifier: Verifier;
  /** Path rules for patches (allow / forbid / protect). */
  readonly rules: {
    readonly allow: readonly string[];
    readonly forbid: readonly string[];
    readonly protect: readonly string[];
  };
  /** Total backend rounds (first attempt included). */
  readonly maxRounds: number;
  /** Wall-time budget of the whole task, in milliseconds. */
  readonly wallTimeMs: number;
  /** Backend output budget in bytes. @default 256 MiB */
  readonly outputBytes?: number;
  /** Backend cost budget in cost units (cents). @default 1e9 */
  readonly costUnits?: number;
  /** The event log (opened by the caller, who closes it). */
  readonly log: EventLog;
  /** The repository's MAC key (receipts, verified patches). */
  readonly key: MacKey;
  /** Directory for this task's artefacts (created if missing). */
  readonly artefactsDir: string;
  /** Task id (file-name safe). */
  readonly taskId: string;
  /** Where worktrees live (default: the worktree module's default root). */
  readonly worktreeRoot?: string;
  /** Ctrl-C: aborting kills the backend, cleans up, and ends `killed`. */
  readonly signal?: AbortSignal;
  /** Opt-in integration. */
  readonly integrate?: IntegrateRequest;
  /** Live progress. */
  readonly onProgress?: (progress: RunProgress) => void;
  /** Every event of the running backend, live (messages, commands, edits, usage, retries). */
  readonly onBackendEvent?: (event: BackendEvent, round: number) => void;
  /** Clock (ms since epoch). @default Date.now */
  readonly now?: () => number;
  /** Max seconds one backend round may take (clamped to the wall budget). */
  readonly backendTimeoutMs?: number;
  /** Ed25519 key: when given, a verified patch is also exported as a DSSE attestation. */
  readonly signingKey?: SigningKey;
}

const encoder = new TextEncoder();

interface RoundState {
  round: number;
  backend: BackendResult | null;
  patch: Uint8Array | null;
  patchDigest: string | null;
  files: string[];
  reasons: string[];
  details: string[];
  checks: CheckSummary[];
  verdict: "verified" | "rejected" | "not_verified";
}

/**
 * Runs one task to a final state. Never throws for anything a backend or the
 * repository does; throws only for programming errors and a broken log.
 *
 * @example
 * ```ts ignore
 * import { runTask } from "./run_task.ts";
 * const outcome = await runTask(options);
 * console.log(outcome.state, outcome.exitCode);
 * ```
 */
export async function runTask(opts: RunTaskOptions): Promise<RunOutcome> {
  return await new TaskRun(opts).run();
}

class TaskRun {
  readonly o: RunTaskOptions;
  readonly now: () => number;
  readonly startedAt: number;
  readonly policy: PolicySnapshot;
  state: KernelState;
  queue: KernelAction[] = [];
  worktree: Worktree | null = null;
  rounds: RoundState[] = [];
  baseline: VerificationRun | null = null;
  verified: VerifiedPatch | null = null;
  patchFile: string | null = null;
  integrated: { branch: string; commit: string } | null = null;
  running: { effectId: string; controller: AbortController } | null = null;
  killedBy: string | null = null;
  finalReason: { state: RunFinalState; reason: string; message: string } | null = null;
  lastBackendFatal: BackendResult | null = null;
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

  progress(phase: string, detail?: string): void {
    this.phase = phase;
    const round = this.rounds.length;
    this.o.onProgress?.({
      phase,
      round,
      check: this.check,
      elapsedMs: this.now() - this.startedAt,
      ...(detail !== undefined ? { detail } : {}),
    });
  }

  get task() {
    return this.state.tasks[this.o.taskId];
  }

  /** Steps the kernel with one event, records the pair, queues the actions. */
  async feed(event: DistributiveOmit<KernelEvent, "v" | "id" | "seq" | "at">): Promise<void> {
    const seq = this.o.log.head.seq + 1;
    const full = {
      v: 1,
      id: `${this.o.taskId}:${seq}`,
      seq,
      at: this.now(),
      ...event,
    } as KernelEvent;
    const { state, actions } = step(this.state, full);
    this.state = state;
    await recordKernelStep(this.o.log, full, actions);
    this.queue.push(...actions);
  }

  async run(): Promise<RunOutcome> {
    const o = this.o;
    await mkdir(o.artefactsDir, { recursive: true });
    await recordKernelInit(o.log, this.policy as unknown as never, KERNEL_LIFECYCLE_VERSION);
    const onAbort = () => void this.running?.controller.abort();
    o.signal?.addEventListener("abort", onAbort);
    try {
      // Baseline first: the clean base revision, before any agent time is spent.
      this.progress("baseline");
      const baselineController = new AbortController();
      const stopBaseline = () => baselineController.abort();
      o.signal?.addEventListener("abort", stopBaseline);
      try {
        this.baseline = await o.verifier.baseline(baselineController.signal, (name) => {
          this.check = name;
          this.progress("baseline");
        });
      } finally {
        o.signal?.removeEventListener("abort", stopBaseline);
        this.check = null;
      }
      await this.writeJson("baseline.json", this.baseline.evidence);

      await this.feed({
        kind: "task_submitted",
        taskId: o.taskId,
        goal: o.goal,
        baseRev: o.base,
        budget: this.budget(),
        contractDigest: o.verifier.contractDigest,
        policyDigest: canonicalDigest(this.policy),
        policy: this.policy,
      });
      if (o.signal?.aborted) await this.kill("user");
      else if (!this.baseline.ran || this.baseline.diagnostics.length > 0) {
        // A contract that cannot run, or gates nothing, proves nothing: refuse now.
        // A refusal (e.g. `setup_network_not_allowed`, `setup_failed`) names why it could not run.
        const why = this.baseline.ran
          ? this.baseline.diagnostics.join(", ")
          : (this.baseline.refusals[0] ?? "baseline_cannot_run");
        const cannotStart = why === "verify_command_cannot_start";
        this.finalReason = {
          // A check that cannot even start (not found, exit 126/127) is "could not run" (exit 5).
          state: cannotStart ? "could_not_run" : "rejected",
          reason: why.split(",")[0] ?? why,
          message: cannotStart && this.baseline.why !== undefined
            ? this.baseline.why
            : `the contract cannot judge this task (${why}); nothing was sent to the backend`,
        };
        await this.feed({ kind: "kill_requested", taskId: o.taskId, by: `vouch:${why}` });
      }
      await this.drain();
      await o.verifier.settle();
      return await this.finish();
    } finally {
      await o.verifier.settle().catch(() => {});
      o.signal?.removeEventListener("abort", onAbort);
      if (this.worktree !== null) await removeWorktree(this.worktree).catch(() => {});
    }
  }

  budget(): TaskBudget {
    return {
      // The wall budget counts from the start of the run: the baseline spent part of it, so a
      // baseline that outlasts --timeout leaves nothing and no backend round starts (exit 3).
      wallTimeMs: Math.max(0, this.o.wallTimeMs - (this.now() - this.startedAt)),
      repairRounds: Math.max(0, this.o.maxRounds - 1),
      outputBytes: this.o.outputBytes ?? 256 * 1024 * 1024,
      costUnits: this.o.costUnits ?? 1_000_000_000,
    };
  }

  async kill(by: string): Promise<void> {
    if (this.killedBy !== null) return;
    this.killedBy = by;
    this.running?.controller.abort();
    await this.feed({ kind: "kill_requested", taskId: this.o.taskId, by });
  }

  /** Performs queued actions until none are left; then ends a paused task. */
  async drain(): Promise<void> {
    for (;;) {
      const action = this.queue.shift();
      if (action === undefined) {
        const task = this.task;
        if (task?.status === "paused") {
          await this.kill(`vouch:${task.reason ?? "budget"}`);
          continue;
        }
        return;
      }
      if (this.o.signal?.aborted && this.killedBy === null && action.kind !== "cleanup") {
        await this.kill("user");
        continue;
      }
      await this.perform(action);
    }
  }

  async perform(action: KernelAction): Promise<void> {
    const o = this.o;
    switch (action.kind) {
      case "append_log":
      case "notify":
        // Already recorded with the step; notify is shown as progress.
        if (action.kind === "notify") this.progress(action.status, action.reason);
        return;
      case "cancel_effect":
        if (this.running?.effectId === action.effectId) this.running.controller.abort();
        return;
      case "create_worktree": {
        this.progress("worktree");
        try {
          this.worktree = await createWorktree({
            repo: o.repo,
            taskId: o.taskId,
            attempt: 1,
            base: o.base,
            ...(o.worktreeRoot !== undefined ? { root: o.worktreeRoot } : {}),
          });
          await this.feed({
            kind: "worktree_ready",
            taskId: o.taskId,
            effectId: action.effectId,
            path: this.worktree.path,
          });
        } catch (error) {
          await this.feed({
            kind: "worktree_failed",
            taskId: o.taskId,
            effectId: action.effectId,
            error: String(error instanceof Error ? error.message : error),
          });
        }
        return;
      }
      case "run_backend":
        return await this.runBackend(action);
      case "extract_diff":
        return await this.extract(action.effectId);
      case "check_scope":
        return await this.checkScope(action.effectId);
      case "run_contract":
        return await this.runContract(action);
      case "request_approval":
        return await this.requestApproval(action);
      case "integrate":
        return await this.integrate(action.effectId);
      case "cleanup": {
        this.progress("cleanup");
        this.running?.controller.abort();
        if (this.worktree !== null) {
          await removeWorktree(this.worktree).catch(() => {});
          this.worktree = null;
        }
        await this.feed({ kind: "cleanup_done", taskId: o.taskId, effectId: action.effectId });
        return;
      }
    }
  }

  currentRound(): RoundState {
    const r = this.rounds.at(-1);
    if (r === undefined) throw new Error("Cannot continue: no backend round is in progress");
    return r;
  }

  /** The user's checkout (judged by content) and the worktree's container minus the worktree. */
  outsideScope(): OutsideScope {
    const trees = [];
    if (this.worktree !== null) {
      const container = this.worktree.container;
      const rel = this.worktree.path.startsWith(container + "/")
        ? this.worktree.path.slice(container.length + 1)
        : "";
      trees.push({ root: container, skip: rel === "" ? [] : [rel] });
    }
    return { checkout: this.o.repo, trees };
  }

  async runBackend(action: Extract<KernelAction, { kind: "run_backend" }>): Promise<void> {
    const o = this.o;
    if (this.lastBackendFatal !== null) {
      // A non-retryable failure (protocol error, bad configuration): more rounds cannot help.
      const f = this.lastBackendFatal.failure;
      this.finalReason = {
        state: "backend_failed",
        reason: f?.code ?? "backend_failed",
        message: `the backend failed and retrying cannot help: ${f?.message ?? "error"}`,
      };
      await this.kill("vouch:backend_failed");
      return;
    }
    const round: RoundState = {
      round: action.round + 1,
      backend: null,
      patch: null,
      patchDigest: null,
      files: [],
      reasons: [],
      details: [],
      checks: [],
      verdict: "not_verified",
    };
    this.rounds.push(round);
    this.progress("backend", o.backend.id);
    const previous = this.rounds.at(-2);
    const feedback = previous === undefined ? undefined : roundPrompt(previous, this.baseline);
    const controller = new AbortController();
    this.running = { effectId: action.effectId, controller };
    const before = await snapshotOutside(this.outsideScope());
    await this.feed({ kind: "backend_started", taskId: o.taskId, effectId: action.effectId });
    const remainingMs = Math.max(1, action.deadlineAt - this.now());
    const limitMs = Math.min(remainingMs, o.backendTimeoutMs ?? remainingMs);
    // The wall-time budget is enforced through the kernel: a timer tick at the deadline.
    let deadlineTimer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<"deadline">((resolve) => {
      deadlineTimer = setTimeout(() => resolve("deadline"), remainingMs + 5);
    });
    const transcriptDir = `${o.artefactsDir}/round-${round.round}`;
    await mkdir(transcriptDir, { recursive: true });
    const work = o.backend.run({
      taskId: o.taskId,
      attempt: round.round,
      goal: o.goal,
      ...(feedback !== undefined ? { feedback } : {}),
      worktree: action.worktree,
      allowedRoots: o.rules.allow.length > 0 ? o.rules.allow : ["**"],
      forbiddenPaths: [...o.rules.forbid, ...o.rules.protect],
      maxSeconds: Math.max(1, Math.floor(limitMs / 1000)),
      maxOutputMb: Math.max(1, Math.floor(action.remaining.outputBytes / (1024 * 1024))),
    }, {
      signal: controller.signal,
      emit: (event) => {
        if (event.kind === "command") this.progress("backend", `$ ${event.command.slice(0, 60)}`);
        try {
          o.onBackendEvent?.(event, round.round);
        } catch {
          // a broken display never changes the run
        }
      },
      transcriptDir,
    });
    const settled = work.then((r) => ({ kind: "done" as const, result: r }));
    let first = await Promise.race([settled, deadline]);
    if (first === "deadline") {
      // Let the kernel decide: it pauses the task and cancels the effect.
      await this.feed({ kind: "timer_tick", taskId: o.taskId });
      controller.abort();
      first = await settled;
    }
    clearTimeout(deadlineTimer);
    this.running = null;
    const result = first.result;
    round.backend = result;
    if (result.patchText !== undefined && result.patchText.length > 0 && this.worktree !== null) {
      // A patch handed over as text (the `fn` backend) is applied into the worktree by
      // git itself (no --unsafe-paths); the real diff is then re-extracted like any other.
      const applied = await applyPatchText(this.worktree, result.patchText);
      if (!applied) {
        round.reasons.push("patch_text_rejected");
        round.details.push("the backend's patch text does not apply (git apply refused it)");
      }
    }
    if (result.status === "error" && result.failure !== undefined && !result.failure.retryable) {
      this.lastBackendFatal = result;
    }
    if (result.transcript !== null) {
      await o.log.append({
        task: o.taskId,
        kind: LOG_KINDS.transcript,
        body: {
          round: round.round,
          stream: "summary",
          // The backend's own final message: a claim, bounded and masked, shown redacted.
          text: maskSecrets(result.summary.slice(0, 2000)).text,
          path: result.transcript.path,
          digest: result.transcript.digest,
          bytes: result.transcript.bytes,
          truncated: result.transcript.truncated,
          masked: result.transcript.masked,
        },
      });
    }
    await this.writeJson(`round-${round.round}/backend_result.json`, {
      ...result,
      patchText: result.patchText === undefined ? undefined : `${result.patchText.length} bytes`,
    });
    // Outside-worktree writes are judged with the patch (scope), never trusted away.
    const after = await snapshotOutside(this.outsideScope());
    this.outside = diffOutsideSnapshots(before, after);
    await this.feed({
      kind: "backend_finished",
      taskId: o.taskId,
      effectId: action.effectId,
      outcome: result.status,
      outputBytes: result.transcript?.bytes ?? 0,
      costUnits: Math.round((result.usage.costUsd ?? 0) * 100),
    });
    // "ok" and "error" are claims about finished work: the kernel has the real diff extracted
    // and judged either way (the status is kept as `backendStatus`). Only a stopped run
    // (timed out, cancelled) has nothing to judge.
    if (result.status === "timed_out" || result.status === "cancelled") {
      round.reasons.push(`backend_${result.status}`);
      round.details.push(`the backend ${result.status.replace("_", " ")}; nothing to judge`);
      round.verdict = "rejected";
    }
  }

  outside: string[] = [];

  async extract(effectId: string): Promise<void> {
    const o = this.o;
    const round = this.currentRound();
    this.progress("validate", "extracting the real diff");
    if (this.worktree === null) {
      await this.kill("vouch:no_worktree");
      return;
    }
    try {
      const diff = await extractDiff(this.worktree);
      round.patch = diff.bytes;
      round.patchDigest = diff.digest;
      round.files = diff.changed.map((c) => c.path);
      await writeFile(`${o.artefactsDir}/round-${round.round}/patch.diff`, diff.bytes);
      if (diff.changed.length === 0 && this.outside.length === 0) {
        // A failure claim with nothing changed is a failed round; a success claim, an empty patch.
        round.reasons.push(
          round.backend?.status === "error" ? "backend_error_no_change" : "empty_patch",
        );
        round.details.push("the backend changed no file");
        round.verdict = "rejected";
      }
      await this.feed({
        kind: "patch_extracted",
        taskId: o.taskId,
        effectId,
        patchDigest: diff.digest,
        // Writes outside the worktree count as changes: they must reach the scope check.
        filesChanged: diff.changed.length + this.outside.length,
      });
    } catch (error) {
      round.reasons.push("extract_failed");
      this.finalReason = {
        state: "rejected",
        reason: "extract_failed",
        message: `Cannot extract the diff: ${error instanceof Error ? error.message : error}`,
      };
      await this.kill("vouch:extract_failed");
    }
  }

  async checkScope(effectId: string): Promise<void> {
    const o = this.o;
    const round = this.currentRound();
    // The kernel applies its own policy to the sensitive classes, and extraction already
    // judged an empty round (empty_patch / backend_error_no_change): the scope leaves both out.
    const inspection = judgePatch(round.patch ?? new Uint8Array(), patchRulesFromLists(o.rules), {
      outsideWrites: this.outside,
      policy: null,
      allowEmpty: true,
    });
    const violations = inspection.violations.map((v) => `${v.code}:${v.path}`);
    round.reasons.push(...inspection.violations.map((v) => v.code));
    round.details.push(...inspection.violations.map((v) => violationDetail(v, o.rules)));
    const sensitive = [...inspection.classification.sensitive];
    if (inspection.verdict === "reject") round.verdict = "rejected";
    if (inspection.verdict === "accept" && sensitive.some((c) => c === "symlink")) {
      round.reasons.push("sensitive:symlink");
    }
    await this.writeJson(`round-${round.round}/inspection.json`, {
      verdict: inspection.verdict,
      files: inspection.files,
      violations: inspection.violations,
      classification: inspection.classification,
    });
    await this.feed({
      kind: "scope_checked",
      taskId: o.taskId,
      effectId,
      verdict: inspection.verdict,
      violations,
      sensitive,
    });
  }

  async runContract(action: Extract<KernelAction, { kind: "run_contract" }>): Promise<void> {
    const o = this.o;
    if (action.phase === "baseline") {
      const b = this.baseline;
      await this.feed({
        kind: "baseline_result",
        taskId: o.taskId,
        effectId: action.effectId,
        ran: b !== null && b.ran,
        checks: b?.checks ?? [],
        setupReceipts: b?.setupReceipts ?? [],
      });
      return;
    }
    const round = this.currentRound();
    this.progress("verify");
    const controller = new AbortController();
    this.running = { effectId: action.effectId, controller };
    const deadlineMs = Math.max(1, this.task!.deadlineAt - this.now());
    const timer = setTimeout(() => controller.abort(), deadlineMs);
    let run: VerificationRun;
    try {
      run = await o.verifier.verify(
        round.round,
        round.patch ?? new Uint8Array(),
        controller.signal,
        (name) => {
          this.check = name;
          this.progress("verify");
        },
      );
    } finally {
      clearTimeout(timer);
      this.running = null;
      this.check = null;
    }
    round.checks = [...run.summaries];
    round.reasons.push(...run.refusals);
    if (run.why !== undefined) round.details.push(run.why);
    for (const c of run.summaries) {
      if (!c.passed) round.details.push(`check "${c.name}": ${c.detail ?? c.outcome}`);
    }
    await this.writeJson(`round-${round.round}/evidence.json`, run.evidence);
    await this.writeJson(`round-${round.round}/receipts.json`, run.receipts);
    if (run.passed && run.refusals.length === 0 && round.patch !== null) {
      const patch = round.patch;
      this.verified = await mintVerifiedPatch(o.key, {
        patch: {
          kind: "unverified_patch",
          task: o.taskId,
          baseRevision: o.base,
          diff: patch,
          backend: o.backend.id,
        },
        contractDigest: o.verifier.contractDigest,
        checks: run.checkEvidence,
        receipts: run.receipts,
        passedAt: this.now(),
        sandboxProfile: run.sandbox,
        logAnchor: await o.log.anchor(),
      });
      round.verdict = "verified";
      this.patchFile = `${o.artefactsDir}/patch.diff`;
      await writeFile(this.patchFile, patch);
      await this.writeJson("verified_patch.json", this.verified.toJSON());
      await o.log.append({
        task: o.taskId,
        kind: LOG_KINDS.verifiedPatchMinted,
        body: this.verified.toJSON(),
      });
      if (o.signingKey !== undefined) {
        const envelope = await attestVerifiedPatch(this.verified, o.key, o.signingKey);
        await this.writeJson("attestation.json", envelope);
        await writeFile(
          `${o.artefactsDir}/attestation.pub.pem`,
          o.signingKey.publicKeyPem,
        );
      }
    } else {
      round.verdict = "rejected";
    }
    await this.feed({
      kind: "verification_result",
      taskId: o.taskId,
      effectId: action.effectId,
      round: action.round,
      // A refused run (patch does not apply, cannot run) fails closed.
      checks: run.refusals.length > 0 || run.checks.length === 0
        ? [{ id: run.refusals[0] ?? "no_checks", outcome: "fail", receipts: [] }]
        : run.checks,
      setupReceipts: run.setupReceipts,
    });
  }

  async requestApproval(
    action: Extract<KernelAction, { kind: "request_approval" }>,
  ): Promise<void> {
    const o = this.o;
    const req = o.integrate;
    this.progress("integrate", "waiting for approval");
    let approved = false;
    if (req !== undefined && this.verified !== null) {
      approved = await req.approve({
        task: o.taskId,
        branch: req.branch,
        patchDigest: action.patchDigest,
        files: this.rounds.at(-1)?.files ?? [],
        sensitive: action.sensitive,
        reasons: action.reasons,
      }).catch(() => false);
    }
    if (approved && req !== undefined) {
      await this.feed({
        kind: "approval_granted",
        taskId: o.taskId,
        approvalId: action.approvalId,
        action: action.action,
        patchDigest: action.patchDigest,
        by: req.approver,
        expiresAt: action.expiresAt,
      });
    } else {
      await this.feed({
        kind: "approval_denied",
        taskId: o.taskId,
        approvalId: action.approvalId,
        by: req?.approver ?? "nobody",
      });
    }
  }

  async integrate(effectId: string): Promise<void> {
    const o = this.o;
    const req = o.integrate;
    this.progress("integrate", req?.branch);
    if (req === undefined || this.verified === null) {
      await this.feed({ kind: "integrated", taskId: o.taskId, effectId, ok: false, commit: null });
      return;
    }
    try {
      const r = await integrate(
        this.verified,
        {
          repoRoot: o.repo,
          branch: req.branch,
          message: `vouch: ${o.goal.split("\n")[0]?.slice(0, 60) ?? "verified patch"}`,
        },
        req.ops,
        o.key,
      );
      this.integrated = { branch: r.branch, commit: r.commit };
      await this.feed({
        kind: "integrated",
        taskId: o.taskId,
        effectId,
        ok: true,
        commit: r.commit,
      });
    } catch (error) {
      this.finalReason = {
        state: "rejected",
        reason: "integrate_failed",
        message: `verified, but integration failed: ${
          error instanceof Error ? error.message : error
        }`,
      };
      await this.feed({ kind: "integrated", taskId: o.taskId, effectId, ok: false, commit: null });
    }
  }

  async writeJson(rel: string, value: unknown): Promise<void> {
    const path = `${this.o.artefactsDir}/${rel}`;
    await mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await writeFile(path, encoder.encode(JSON.stringify(value, null, 2) + "\n"));
  }

  /** Maps the kernel's terminal state (and why) to the run's explicit final state. */
  decide(): { state: RunFinalState; reason: string; message: string } {
    const task = this.task;
    const status = task?.status ?? "failed";
    const reason = task?.reason ?? "unknown";
    if (this.killedBy === "user") {
      return { state: "killed", reason: "interrupted", message: "stopped by the user (Ctrl-C)" };
    }
    if (this.finalReason !== null) return this.finalReason;
    if (status === "completed") {
      return this.integrated !== null
        ? {
          state: "verified",
          reason: "integrated",
          message: `verified and committed on ${this.integrated.branch}`,
        }
        : { state: "verified", reason: "verified", message: "every check passed in a clean tree" };
    }
    if (this.killedBy !== null && this.killedBy.startsWith("vouch:budget")) {
      const which = this.killedBy.slice("vouch:".length);
      if (which === "budget_repair_rounds") {
        // A round is the backend's failure only when it also left nothing to judge: a
        // reported error whose real diff was judged (and rejected) is vouch's verdict.
        const backendRounds = this.rounds.filter((r) =>
          r.backend?.status !== "ok" && r.files.length === 0 && r.checks.length === 0
        );
        if (this.rounds.length > 0 && backendRounds.length === this.rounds.length) {
          return {
            state: "backend_failed",
            reason: "backend_failed",
            message: `the backend failed in every round (${this.rounds.length})${
              lastFailureCause(this.rounds)
            }`,
          };
        }
        return {
          state: "rejected",
          reason: "max_rounds",
          message: `no round passed verification within ${this.o.maxRounds} round(s)`,
        };
      }
      return {
        state: "budget_exhausted",
        reason: which,
        message: which === "budget_wall_time"
          ? `out of time: the --timeout of ${Math.round(this.o.wallTimeMs / 1000)} s passed${
            this.rounds.length === 0 ? " before any backend round (the baseline took it)" : ""
          }; nothing more was started`
          : `the task ran out of budget (${which}); the backend was stopped`,
      };
    }
    if (status === "rejected") {
      return { state: "rejected", reason, message: rejectionMessage(reason, this.rounds.at(-1)) };
    }
    if (status === "failed" && reason === "backend_cancelled") {
      return {
        state: "backend_failed",
        reason,
        message: "the backend stopped on its own (cancelled)",
      };
    }
    if (status === "failed") {
      return { state: "rejected", reason, message: `the task failed: ${reason}` };
    }
    return { state: "killed", reason: this.killedBy ?? reason, message: `stopped (${reason})` };
  }

  async finish(): Promise<RunOutcome> {
    const o = this.o;
    const { state, reason, message } = this.decide();
    const outcome: RunOutcome = {
      task: o.taskId,
      state,
      exitCode: RUN_EXIT_CODES[state],
      reason,
      message,
      base: o.base,
      baseline: this.baseline?.summaries ?? [],
      rounds: this.rounds.map((r): RoundSummary => ({
        round: r.round,
        backendStatus: r.backend?.status ?? "not_run",
        selfClaimedDone: r.backend?.selfClaimedDone ?? false,
        filesChanged: r.files,
        verdict: r.verdict,
        reasons: [...new Set(r.reasons)],
        details: r.verdict === "verified" ? [] : [...new Set(r.details)],
        checks: r.checks,
        ...(r.backend?.failure !== undefined
          ? { backendFailure: { code: r.backend.failure.code, message: r.backend.failure.message } }
          : {}),
      })),
      patchFile: state === "verified" ? this.patchFile : null,
      patchDigest: state === "verified" ? (this.verified?.patchDigest ?? null) : null,
      artefactsDir: o.artefactsDir,
      logPath: o.log.path,
      integrated: this.integrated,
      elapsedMs: this.now() - this.startedAt,
      ...(state === "backend_failed" ? lastFailure(this.rounds) : {}),
    };
    await o.log.append({
      task: o.taskId,
      kind: "run.outcome",
      body: JSON.parse(JSON.stringify(outcome)),
    });
    await o.log.flush();
    await this.writeJson("outcome.json", outcome);
    this.progress("done", state);
    return outcome;
  }
}

function rejectionMessage(reason: string, last: RoundState | undefined): string {
  const detail = last !== undefined && last.reasons.length > 0
    ? `: ${[...new Set(last.reasons)].join(", ")}`
    : "";
  switch (reason) {
    case "scope_violation":
      return `the patch breaks the task's scope${detail}`;
    case "policy_denied":
      return `the patch touches files policy denies${detail}`;
    case "approval_denied":
      return "verified, but integration was not approved";
    default:
      return `${reason}${detail}`;
  }
}

/** `Omit` that distributes over a union. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Digest of arbitrary text (helper for task ids and artefact names). */
export function shortDigest(text: string): string {
  return sha256Hex(text).slice("sha256:".length, "sha256:".length + 8);
}

/** Applies worker-supplied patch bytes in the worktree with plain `git apply`. */
async function applyPatchText(wt: Worktree, patch: Uint8Array): Promise<boolean> {
  const tree = { cwd: wt.path, gitArgs: worktreeGitArgs(wt), timeoutMs: 60_000 };
  return (await applyPatch(tree, patch, "worktree")).ok;
}

/** `: <cause>` of the last round whose backend failed, or "" (the cause belongs on screen). */
function lastFailure(
  rounds: readonly RoundState[],
): { backendFailure: { code: string; message: string } } | Record<never, never> {
  const f = [...rounds].reverse().find((r) => r.backend?.failure !== undefined)?.backend?.failure;
  return f === undefined ? {} : { backendFailure: { code: f.code, message: f.message } };
}

function lastFailureCause(rounds: readonly RoundState[]): string {
  const failed = [...rounds].reverse().find((r) => r.backend?.failure !== undefined);
  return failed?.backend?.failure ? `: ${failed.backend.failure.message}` : "";
}
