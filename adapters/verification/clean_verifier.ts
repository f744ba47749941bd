/**
 * Clean re-verification: the contract runs in a FRESH worktree of the base with
 * the patch applied by `git apply --index` (protected paths restored from the
 * base), inside the selected sandbox, with a MAC'd receipt for every command.
 * Nothing the worker left in its own worktree (untracked files, build
 * artefacts) exists there. Installed dependency directories of the user's
 * checkout (`node_modules`, ...) are given to it as private, writable copies
 * (copy-on-write where the filesystem can) when the patch touches no
 * dependency manifest or lockfile, so checks may write caches into them and
 * the user's never change; a patch that does is refused, because its
 * dependencies cannot be verified without a setup step. A contract with
 * `setup` links nothing: its setup commands run in the clean tree before the
 * baseline and before each verification, with receipts like checks, and with
 * the network only when the contract asks for it AND the caller allows it
 * (`allowSetupNetwork`); a failing setup fails the verification (`setup_failed`).
 * Every command's timeout is clamped to what the run's `deadline` leaves.
 *
 * @module
 */
import { realpath } from "node:fs/promises";
import type { CheckSlots } from "./check_slots.ts";
import type { OutcomeContract } from "../../kernel/contract/types.ts";
import type {
  BaselineCapture,
  CheckJudgement,
  CheckObservation,
} from "../../kernel/contract/types.ts";
import { judgeBaseline, judgeContract } from "../../kernel/contract/judge.ts";
import { compileGlobs } from "../../kernel/glob/glob_set.ts";
import type { RoundCheckResult } from "../../kernel/lifecycle/events.ts";
import { canonicalDigest } from "../canonical_json/canonical_json.ts";
import { runProcess } from "../process/run.ts";
import type { ProcessResult } from "../process/types.ts";
import { utf8Tail } from "../process/capture.ts";
import { cannotRunObservation, clampTimeout, observeCheck } from "../contract/evaluate.ts";
import type { ReceiptRecorder } from "../receipts/chain.ts";
import { receiptDigest, receiptInputFromProcess, type ToolReceipt } from "../receipts/receipt.ts";
import {
  probeSandbox,
  type SandboxProbe,
  type SandboxRequirement,
  selectSandbox,
} from "../host/sandbox_probe.ts";
import { sandboxLabel, type SandboxProfile, withSetupNetwork } from "../sandbox/profile.ts";
import type { PatchCheckEvidence } from "../verified_patch/verified_patch.ts";
import { type CleanTree, createCleanTree } from "../worktree/clean_tree.ts";
import type { CleanTreePool } from "../worktree/tree_pool.ts";
import { tryParseGitDiff } from "../../kernel/diff/parse.ts";
import { judgeAppliedPatch } from "../../kernel/scope/judge_applied.ts";
import { removeWorktree, type Worktree } from "../worktree/worktree.ts";
import { WorktreeError } from "../worktree/errors.ts";
import type { CheckSummary, VerificationRun, Verifier } from "./verifier.ts";
import { findDependencyDirs, planDependencies } from "../deps/dependency_plan.ts";
import {
  DependencyCopyError,
  provideDependencyDirs,
  runSetup,
  type SetupReport,
} from "../deps/provide.ts";
import { maskSecrets } from "../backends/transcript.ts";
import { cannotStart, checkDetail } from "./check_detail.ts";
import { DEFAULT_CHECK_LIMITS, withDefaultLimits } from "../sandbox/limits.ts";
import { withDependencyViews } from "../sandbox/bwrap.ts";
import type { DependencyView } from "../deps/shared.ts";

/** A full commit id (SHA-1 or SHA-256): what the verifier's `base` must be. */
const FULL_COMMIT = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** Options of {@link createCleanVerifier}. */
export interface CleanVerifierOptions {
  /** The user's repository (top level). */
  readonly repo: string;
  /** Full base commit. */
  readonly base: string;
  /** The task id (names the verification worktrees). */
  readonly taskId: string;
  /** The contract. */
  readonly contract: OutcomeContract;
  /** Receipts for every command run for the verdict. */
  readonly receipts: ReceiptRecorder;
  /** Sandbox requirement (`auto` and `bwrap` require bwrap and never fall back; `none` is explicit). */
  readonly sandbox: SandboxRequirement;
  /** Paths outside the tree the checks need, read-only (`--sandbox-ro`); recorded in receipts. */
  readonly sandboxReadOnly?: readonly string[];
  /** Worktree root (default: the worktree module's). */
  readonly worktreeRoot?: string;
  /** Refuse a contract whose gating checks all pass before any change. @default false */
  readonly requireFailingBaseline?: boolean;
  /**
   * Policy: the contract's setup commands may use the network when the
   * contract asks for it (`setup.network: "allow"`). When the contract asks and
   * this is not set, every run is refused with `setup_network_not_allowed`
   * before anything runs. Checks never get the network. @default false
   */
  readonly allowSetupNetwork?: boolean;
  /** The run's deadline (ms since epoch): every command's timeout is clamped to what it leaves. */
  readonly deadline?: number;
  /**
   * Clean trees shared with other verifiers of the same repository and base
   * (`vouch batch`): the first tree is taken from it (and reset) when it has
   * one, and given back at `settle()` instead of removed.
   */
  readonly pool?: CleanTreePool;
  /**
   * How many times this task uses a clean tree at most (the baseline and each
   * round): the last use needs no stat mark for a later reset, so a one-round
   * `vouch verify` never pays for one. Trees given back to a `pool` are always
   * marked. @default Infinity
   */
  readonly maxTreeUses?: number;
  /**
   * One sandbox probe shared by many verifiers (`vouch batch` probes once per
   * batch, not once per candidate). @default a probe of this verifier's own
   */
  readonly sandboxProbe?: Promise<SandboxProbe>;
  /**
   * Slots shared with other verifiers (`vouch batch`): the setup and checks run
   * only in a free slot; trees are prepared outside it. @default no limit
   */
  readonly checkSlots?: CheckSlots;
}

/** Refusal codes of the setup step (in {@linkcode VerificationRun.refusals}). */
export type SetupRefusalCode = "setup_network_not_allowed" | "setup_failed";

const OUTPUT_TAIL_BYTES = 4096;
/** Bytes captured per stream of a check (what `$json` expectations can see): 1 MiB, as documented. */
const CHECK_CAPTURE_BYTES = 1024 * 1024;

function summarize(
  judgement: CheckJudgement,
  result: ProcessResult | undefined,
  ctx: {
    contract: OutcomeContract;
    captures: readonly BaselineCapture[];
    tree: string;
    sandboxed: boolean;
  },
): CheckSummary {
  const check = ctx.contract.checks.find((c) => c.name === judgement.name);
  const against = check?.differential?.against;
  const capture = against === undefined ? undefined : ctx.captures.find((c) => c.name === against);
  const detail = checkDetail({
    judgement,
    ...(result !== undefined ? { result } : {}),
    timeoutMs: check?.timeoutMs ?? 0,
    ...(capture !== undefined ? { capture } : {}),
    sandboxed: ctx.sandboxed,
    tree: ctx.tree,
  });
  const passed = judgement.status === "passed" || judgement.status === "captured";
  const text = result === undefined
    ? ""
    : `${result.stdout.tail || result.stdout.head}\n${result.stderr.tail || result.stderr.head}`;
  const why = judgement.reasons.map((r) => `${r.code}: ${r.message}`).join("\n");
  return {
    name: judgement.name,
    passed,
    outcome: judgement.status === "passed" ? "pass" : judgement.status,
    exitCode: result?.exitCode ?? null,
    durationMs: Math.round(result?.durationMs ?? 0),
    outputTail: maskSecrets(
      utf8Tail(
        `${text.trim()}${why ? `\n${why}` : ""}`,
        OUTPUT_TAIL_BYTES,
      ),
    ).text,
    ...(judgement.tests !== undefined ? { tests: judgement.tests } : {}),
    ...(detail !== undefined ? { detail } : {}),
  };
}

function setupSummary(report: SetupReport): CheckSummary {
  const last = report.results.at(-1);
  const result = last?.result;
  const text = result === undefined
    ? ""
    : `${result.stdout.tail || result.stdout.head}\n${result.stderr.tail || result.stderr.head}`;
  const why = `setup_failed: ${report.failed ?? "?"} (${report.reason ?? "failed"})`;
  return {
    name: `setup: ${report.failed ?? "?"}`,
    passed: false,
    outcome: "setup_failed",
    exitCode: last !== undefined && last.command === report.failed ? last.result.exitCode : null,
    durationMs: Math.round(result?.durationMs ?? 0),
    outputTail: maskSecrets(utf8Tail(`${text.trim()}\n${why}`, OUTPUT_TAIL_BYTES)).text,
  };
}

/** The kernel's view of one judged check, naming the receipt it rests on (if it ran). */
function outcomeOf(j: CheckJudgement): RoundCheckResult["outcome"] {
  return j.status === "passed" || j.status === "captured"
    ? "pass"
    : j.status === "inconclusive"
    ? "inconclusive"
    : "fail";
}

function toKernelOutcome(j: CheckJudgement, receipt: ToolReceipt | undefined): RoundCheckResult {
  const outcome = outcomeOf(j);
  return { id: j.name, outcome, receipts: receipt === undefined ? [] : [receiptDigest(receipt)] };
}

/**
 * Builds the {@link Verifier} the driver uses.
 *
 * @example
 * ```ts ignore
 * import { createCleanVerifier } from "./clean_verifier.ts";
 * const verifier = createCleanVerifier({ repo, base, taskId, contract, receipts, sandbox: "auto" });
 * const baseline = await verifier.baseline(AbortSignal.timeout(60_000), () => {});
 * ```
 */
export function createCleanVerifier(opts: CleanVerifierOptions): Verifier {
  const contract = opts.contract;
  // The contract file's digest when there is one (recomputable from the file), else the model's.
  const contractDigest = contract.sourceDigest ?? canonicalDigest(contract as unknown as never);
  const isProtected = contract.protect.length > 0
    ? ((set) => (path: string) => set.matches(path))(compileGlobs(contract.protect))
    : () => false;
  let captures: readonly BaselineCapture[] = [];
  let attempt = 0;
  // One probe per verifier (a real bwrap run), started early, reused by every check run.
  let probe: Promise<SandboxProbe> | null = opts.sandboxProbe ?? null;
  const getProbe = () => probe ??= probeSandbox();
  if (opts.sandbox !== "none") void getProbe().catch(() => {});
  // Verification trees are removed in the background; `settle()` waits for them.
  const removals = new Set<Promise<void>>();
  const removeLater = (tree: Worktree) => {
    const p: Promise<void> = removeWorktree(tree).catch(() => {}).finally(() => removals.delete(p));
    removals.add(p);
  };
  let top: Promise<string> | null = null;
  const realTop = () => top ??= realpath(opts.repo);
  // ONE clean tree per task: the baseline runs in it, and before each verification it is
  // reset to the base (stat data first; proven clean by git) instead of checked out again.
  let held: CleanTree | null = null;
  async function cleanTree(patch: Uint8Array, signal: AbortSignal): Promise<CleanTree> {
    const reuse = held ?? opts.pool?.take(opts.repo, opts.base) ?? null;
    held = null;
    const use = ++attempt;
    const clean = await createCleanTree({
      repo: opts.repo,
      taskId: opts.taskId,
      attempt: use,
      base: opts.base,
      patch,
      // The last use of a tree nobody resets again needs no mark.
      mark: opts.pool !== undefined || use < (opts.maxTreeUses ?? Infinity),
      ...(FULL_COMMIT.test(opts.base)
        ? { resolved: { top: await realTop(), base: opts.base } }
        : {}),
      ...(patch.length > 0 ? { isProtected } : {}),
      ...(opts.worktreeRoot !== undefined ? { root: opts.worktreeRoot } : {}),
      ...(reuse !== null ? { reuse } : {}),
      signal,
    });
    held = clean;
    return clean;
  }

  // The user's installed dependency directories, found once (git ls-files, ignored dirs).
  let installed: Promise<string[]> | null = null;
  // Shared read-only snapshots (a batch) only where bwrap makes them read-only; else copies.
  const shared = opts.sandbox !== "none" ? opts.pool?.dependencies : undefined;
  const getInstalled = () =>
    installed ??= opts.pool?.dependencies?.installed(opts.repo) ??
      findDependencyDirs(opts.repo).catch(() => []);
  // The read-only dependency views of the tree in use (bound by its sandbox profile).
  let views: readonly DependencyView[] = [];
  // Looked up while the first tree is checked out (without setup they are always needed).
  if (contract.setup === undefined) void getInstalled();

  /**
   * Gives the clean tree private, writable copies of the base checkout's
   * installed dependencies (the user's never change). Throws `apply_failed`
   * when the patch changes a manifest or lockfile: those dependencies would
   * not match it.
   */
  async function provideDependencies(tree: Worktree, changed: readonly string[]): Promise<void> {
    // With setup, nothing is copied: setup installs into the clean tree itself.
    const hasSetup = contract.setup !== undefined;
    const plan = planDependencies(changed, hasSetup ? [] : await getInstalled(), { hasSetup });
    views = [];
    if (plan.mode === "refuse") throw new WorktreeError("apply_failed", plan.reason);
    views = (await provideDependencyDirs(plan, opts.repo, tree.path, shared)).views;
  }

  // What the contract and the caller declare the checks' sandbox must also show, and its limits.
  const declaredReadOnly = [...(opts.sandboxReadOnly ?? []), ...(contract.sandbox?.readOnly ?? [])];
  const limits = withDefaultLimits(contract.sandbox?.limits, DEFAULT_CHECK_LIMITS);
  // The key file in use (whatever env chose it) is never visible, nor inside a declared path.
  const keyStoreDir = opts.receipts.keyPath;
  async function sandboxFor(tree: Worktree): Promise<SandboxProfile> {
    return opts.sandbox === "none"
      ? await selectSandbox("none", { worktree: tree.path, limits })
      : withViews(
        await selectSandbox(opts.sandbox, {
          worktree: tree.path,
          probe: await getProbe(),
          declaredReadOnly,
          limits,
          keyStoreDir,
        }),
      );
  }
  // The tree's shared dependency views (a batch), bound read-only over their mount points.
  const withViews = (p: SandboxProfile) => p.kind === "bwrap" ? withDependencyViews(p, views) : p;
  const declaredOf = (p: SandboxProfile) => p.kind === "bwrap" ? p.declaredReadOnly ?? [] : [];

  /** The refusal when the contract's setup wants the network and the policy does not allow it. */
  function setupNetworkRefusal(): VerificationRun | null {
    if (contract.setup?.network !== "allow" || opts.allowSetupNetwork === true) return null;
    return refused(
      "setup_network_not_allowed",
      'Cannot run setup: the contract\'s setup asks for the network (network: "allow") but the ' +
        "policy does not allow it; nothing was run. Pass --allow-setup-network to let setup " +
        "commands (never checks) reach the network.",
    );
  }

  /** Runs the contract's setup commands in the tree, one MAC'd receipt each. */
  async function runSetupIn(
    tree: Worktree,
    phase: "baseline" | "round",
    sandbox: SandboxProfile,
    signal: AbortSignal,
    onCheck: (name: string) => void,
  ): Promise<{ report: SetupReport; receipts: ToolReceipt[]; sandbox: string }> {
    const setup = contract.setup!;
    const profile = setup.network === "allow" && opts.allowSetupNetwork === true
      ? withSetupNetwork(sandbox)
      : sandbox;
    const label = sandboxLabel(profile);
    const receipts: ToolReceipt[] = [];
    let index = 0;
    onCheck("setup");
    const report = await runSetup(setup.commands, {
      tree: tree.path,
      sandbox: profile,
      timeoutMs: setup.timeoutMs,
      ...(opts.deadline !== undefined ? { deadline: opts.deadline } : {}),
      env: { NO_COLOR: "1" },
      signal,
      onResult: async (_command, result, startedAt) => {
        receipts.push(
          await opts.receipts.record(
            receiptInputFromProcess(
              opts.taskId,
              `${phase}:setup:${++index}`,
              result,
              startedAt,
              label,
              declaredOf(profile),
            ),
          ),
        );
      },
    }).catch((error): SetupReport => ({
      ok: false,
      results: [],
      failed: "setup",
      reason: error instanceof Error ? error.message : String(error),
    }));
    return { report, receipts, sandbox: label };
  }

  function setupEvidence(run: { report: SetupReport; sandbox: string }) {
    return {
      sandbox: run.sandbox,
      ok: run.report.ok,
      failed: run.report.failed,
      reason: run.report.reason,
      commands: run.report.results.map(({ command, result }) => ({
        command,
        exitCode: result.exitCode,
        timedOut: result.timedOut,
        durationMs: Math.round(result.durationMs),
      })),
    };
  }

  function setupFailed(
    run: { report: SetupReport; receipts: ToolReceipt[]; sandbox: string },
    phase: "baseline" | "round",
  ): VerificationRun {
    const summary = setupSummary(run.report);
    return {
      ran: false,
      checks: [],
      summaries: [summary],
      passed: false,
      refusals: ["setup_failed"],
      diagnostics: [],
      sandbox: run.sandbox,
      checkEvidence: [],
      receipts: run.receipts,
      setupReceipts: run.receipts.map(receiptDigest),
      why: `Cannot verify: setup command \`${run.report.failed}\` failed (${run.report.reason})`,
      evidence: {
        phase,
        refused: "setup_failed",
        message:
          `Cannot verify: setup command \`${run.report.failed}\` failed (${run.report.reason})`,
        setup: setupEvidence(run),
        summaries: [summary],
      },
    };
  }

  async function runChecks(
    tree: Worktree,
    phase: "baseline" | "round",
    signal: AbortSignal,
    onCheck: (name: string) => void,
    sandbox: SandboxProfile,
  ): Promise<{
    observations: CheckObservation[];
    results: Map<string, ProcessResult>;
    started: Map<string, number>;
    sandbox: SandboxProfile;
  }> {
    const observations: CheckObservation[] = [];
    const results = new Map<string, ProcessResult>();
    const started = new Map<string, number>();
    for (const check of contract.checks) {
      if (phase === "round" && check.baseline) continue;
      // A differential is judged against the baseline, never on it: not run there either.
      if (phase === "baseline" && check.differential !== null && !check.baseline) continue;
      onCheck(check.name);
      const timeoutMs = clampTimeout(check.timeoutMs, opts.deadline);
      if (timeoutMs <= 0) {
        // Fail closed: a check the deadline leaves no time for fails as timed out (the wall
        // budget ran out: the run ends budget_exhausted, not "could not run").
        observations.push({
          ...cannotRunObservation(check.name, "the run's deadline left no time"),
          cannotRun: null,
          timedOut: true,
        });
        continue;
      }
      const startedAt = Date.now();
      const result = await runProcess({
        ...("argv" in check.run ? { argv: check.run.argv } : { shell: check.run.shell }),
        cwd: tree.path,
        env: { NO_COLOR: "1" },
        timeoutMs,
        signal,
        sandbox,
        maxCaptureBytes: CHECK_CAPTURE_BYTES,
      });
      results.set(check.name, result);
      started.set(check.name, startedAt);
      // The runner's observation: test-output parsing and the SWE-bench-like guard included.
      const observed = observeCheck(check, result);
      // Stopped at the run's deadline, the check timed out (the wall budget ran out: exit 3);
      // stopped otherwise (Ctrl-C), it was cancelled and proves nothing.
      const atDeadline = opts.deadline !== undefined && Date.now() >= opts.deadline - 50;
      observations.push(
        signal.aborted && observed.cannotRun === null
          ? atDeadline ? { ...observed, timedOut: true } : { ...observed, cannotRun: "cancelled" }
          : observed,
      );
    }
    return { observations, results, started, sandbox };
  }

  /**
   * Records one MAC'd receipt per check that ran, in contract order, AFTER the
   * judgement, each sealing the outcome the judgement gave its check (so the
   * log's result events can be re-derived from their receipts).
   */
  async function sealChecks(
    phase: "baseline" | "round",
    run: {
      results: Map<string, ProcessResult>;
      started: Map<string, number>;
      sandbox: SandboxProfile;
    },
    judged: readonly CheckJudgement[],
  ): Promise<Map<string, ToolReceipt>> {
    const outcomes = new Map(judged.map((j) => [j.name, outcomeOf(j)]));
    const receipts = new Map<string, ToolReceipt>();
    for (const [name, result] of run.results) {
      const outcome = outcomes.get(name);
      const input = receiptInputFromProcess(
        opts.taskId,
        `${phase}:${name}`,
        result,
        run.started.get(name)!,
        sandboxLabel(run.sandbox),
        declaredOf(run.sandbox),
      );
      receipts.set(
        name,
        await opts.receipts.record(outcome === undefined ? input : { ...input, outcome }),
      );
    }
    return receipts;
  }

  /**
   * Policy on git's own result of the apply (modes as git made them, symlinks,
   * gitlinks), and every mode the patch states checked against it; null when fine.
   */
  function judgeApplied(
    patch: Uint8Array,
    applied: CleanTree["applied"],
  ): VerificationRun | null {
    const parsed = tryParseGitDiff(patch);
    const judged = parsed.ok
      ? judgeAppliedPatch(parsed.diff, applied)
      : { reasons: ["unparsable_patch"], violations: [] };
    if (judged.reasons.length === 0) return null;
    const detail = judged.violations.map((v) => `${v.code} ${JSON.stringify(v.path)}: ${v.detail}`);
    return {
      ...refused(
        judged.reasons[0]!,
        `Cannot verify: git's result of applying the patch is refused (${
          [...judged.reasons].join(", ")
        })${detail.length > 0 ? `: ${detail.join("; ")}` : ""}`,
      ),
      refusals: [...judged.reasons],
    };
  }

  /**
   * The contract's commands (setup, then the checks) in one of the shared check
   * slots when there are any; `run` is null when setup failed.
   */
  async function execute(
    tree: Worktree,
    phase: "baseline" | "round",
    signal: AbortSignal,
    onCheck: (name: string) => void,
  ) {
    const release = opts.checkSlots === undefined ? () => {} : await opts.checkSlots.acquire();
    try {
      const sandbox = await sandboxFor(tree);
      const setup = contract.setup !== undefined
        ? await runSetupIn(tree, phase, sandbox, signal, onCheck)
        : null;
      if (setup !== null && !setup.report.ok) return { sandbox, setup, run: null };
      return { sandbox, setup, run: await runChecks(tree, phase, signal, onCheck, sandbox) };
    } finally {
      release();
    }
  }

  function refused(code: string, message: string, sandbox = "none"): VerificationRun {
    return {
      ran: false,
      checks: [],
      summaries: [],
      passed: false,
      refusals: [code],
      diagnostics: [],
      sandbox,
      checkEvidence: [],
      receipts: [],
      setupReceipts: [],
      why: message,
      evidence: { refused: code, message },
    };
  }

  return {
    contractDigest,
    async settle() {
      // The task is over: its clean tree goes too.
      if (held !== null) opts.pool ? opts.pool.give(held) : removeLater(held.worktree);
      held = null;
      while (removals.size > 0) await Promise.all([...removals]);
    },
    async baseline(signal, onCheck) {
      const networkRefusal = setupNetworkRefusal();
      if (networkRefusal !== null) return networkRefusal;
      try {
        const tree = (await cleanTree(new Uint8Array(), signal)).worktree;
        await provideDependencies(tree, []);
        const { sandbox, setup, run } = await execute(tree, "baseline", signal, onCheck);
        if (run === null) return setupFailed(setup!, "baseline");
        const judgement = judgeBaseline(contract, run.observations, {
          requireFailingBaseline: opts.requireFailingBaseline ?? false,
          allowGatesNothing: !(opts.requireFailingBaseline ?? false),
        });
        captures = judgement.captures;
        const receipts = await sealChecks("baseline", run, judgement.before);
        const cannotRun = judgement.diagnostics.some((d) => d.code === "baseline_cannot_run") &&
          judgement.before.length === 0 && judgement.captures.length === 0;
        const ctx = {
          contract,
          captures,
          tree: tree.path,
          sandboxed: sandbox.kind === "bwrap",
        };
        const summaries = judgement.before.map((j) => summarize(j, run.results.get(j.name), ctx));
        // A check whose command cannot even start (not found, not executable) proves nothing:
        // stop before any agent time is spent, saying which and why.
        const unstartable = [...run.results].filter(([, r]) => cannotStart(r)).map(([n]) => n);
        if (unstartable.length > 0) {
          const name = unstartable[0]!;
          const result = run.results.get(name)!;
          const cause = result.spawnError !== null
            ? `cannot start: ${result.spawnError.message}`
            : summaries.find((x) => x.name === name)?.detail ?? `exited ${result.exitCode}`;
          const why = `Cannot run the contract: check \`${name}\` cannot start at the base ` +
            `revision (${cause}); nothing was sent to the backend`;
          return {
            ran: false,
            checks: judgement.before.map((j) => toKernelOutcome(j, receipts.get(j.name))),
            summaries,
            passed: false,
            refusals: ["verify_command_cannot_start"],
            diagnostics: [],
            sandbox: sandboxLabel(run.sandbox),
            checkEvidence: [],
            receipts: [...(setup?.receipts ?? []), ...receipts.values()],
            setupReceipts: (setup?.receipts ?? []).map(receiptDigest),
            why,
            cannotStart: unstartable,
            evidence: {
              phase: "baseline",
              refused: "verify_command_cannot_start",
              message: why,
              summaries,
            },
          };
        }
        return {
          ran: !cannotRun,
          checks: judgement.before.map((j) => toKernelOutcome(j, receipts.get(j.name))),
          summaries,
          passed: judgement.before.every((j) => j.status === "passed"),
          refusals: [],
          diagnostics: judgement.refusal !== null ? [judgement.refusal.code] : [],
          sandbox: sandboxLabel(run.sandbox),
          checkEvidence: [],
          receipts: [...(setup?.receipts ?? []), ...receipts.values()],
          setupReceipts: (setup?.receipts ?? []).map(receiptDigest),
          evidence: {
            phase: "baseline",
            base: opts.base,
            sandbox: sandboxLabel(run.sandbox),
            ...(setup !== null ? { setup: setupEvidence(setup) } : {}),
            diagnostics: judgement.diagnostics,
            refusal: judgement.refusal,
            checks: judgement.before,
            captures: judgement.captures,
            summaries,
          },
        };
      } catch (error) {
        return refused(
          error instanceof WorktreeError ? error.code : "baseline_failed",
          error instanceof Error ? error.message : String(error),
        );
      }
    },
    async verify(round, patch, signal, onCheck) {
      const networkRefusal = setupNetworkRefusal();
      if (networkRefusal !== null) return networkRefusal;
      let clean;
      try {
        clean = await cleanTree(patch, signal);
      } catch (error) {
        if (error instanceof WorktreeError) return refused(error.code, error.message);
        throw error;
      }
      const tree = clean.worktree;
      const appliedRefusal = judgeApplied(patch, clean.applied);
      if (appliedRefusal !== null) return appliedRefusal;
      try {
        await provideDependencies(tree, clean.changed);
      } catch (error) {
        if (error instanceof WorktreeError) {
          return refused("dependency_change_needs_setup", error.message);
        }
        if (error instanceof DependencyCopyError) return refused(error.code, error.message);
        throw error;
      }
      const { sandbox, setup, run } = await execute(tree, "round", signal, onCheck);
      if (run === null) return setupFailed(setup!, "round");
      const judgement = judgeContract(contract, run.observations, captures);
      const receipts = await sealChecks("round", run, judgement.checks);
      const gating = judgement.checks.filter((j) =>
        !(contract.checks.find((c) => c.name === j.name)?.baseline ?? false)
      );
      const summaries = gating.map((j) =>
        summarize(j, run.results.get(j.name), {
          contract,
          captures,
          tree: tree.path,
          sandboxed: sandbox.kind === "bwrap",
        })
      );
      const unstartable = gating.map((j) => j.name).filter((n) => {
        const r = run.results.get(n);
        return r !== undefined && cannotStart(r);
      });
      const checkEvidence: PatchCheckEvidence[] = gating.map((j) => {
        const receipt = receipts.get(j.name);
        return {
          id: j.name,
          outcome: toKernelOutcome(j, receipt).outcome,
          receipt: receipt === undefined ? "sha256:" + "0".repeat(64) : receiptDigest(receipt),
        };
      });
      return {
        ran: true,
        checks: gating.map((j) => toKernelOutcome(j, receipts.get(j.name))),
        summaries,
        passed: judgement.verdict === "passed",
        refusals: [],
        diagnostics: [],
        sandbox: sandboxLabel(run.sandbox),
        checkEvidence,
        receipts: [...(setup?.receipts ?? []), ...receipts.values()],
        setupReceipts: (setup?.receipts ?? []).map(receiptDigest),
        ...(unstartable.length > 0 ? { cannotStart: unstartable } : {}),
        evidence: {
          phase: "round",
          round,
          base: opts.base,
          sandbox: sandboxLabel(run.sandbox),
          ...(setup !== null ? { setup: setupEvidence(setup) } : {}),
          restoredProtected: clean.restored,
          changed: clean.changed,
          verdict: judgement.verdict,
          checks: judgement.checks,
          summaries,
        },
      };
    },
  };
}

/**
 * The contract file equivalent to `--verify CMD`:
 * `{"checks":[{"name":"verify","run":CMD,"timeout":SECONDS}]}` (plus `protect`
 * when given). Its canonical digest is the `contractDigest` of a patch
 * verified with `--verify CMD`.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { commandContractFile } from "./clean_verifier.ts";
 * deepEqual(commandContractFile("deno test", 600_000), {
 *   checks: [{ name: "verify", run: "deno test", timeout: 600 }],
 * });
 * ```
 */
export function commandContractFile(
  command: string,
  timeoutMs: number,
  protect: readonly string[] = [],
): { checks: { name: string; run: string; timeout: number }[]; protect?: string[] } {
  return {
    checks: [{ name: "verify", run: command, timeout: timeoutMs / 1000 }],
    ...(protect.length > 0 ? { protect: [...protect] } : {}),
  };
}

/**
 * The one-check contract `--verify CMD` stands for: run CMD with `sh -c` in the
 * clean tree; exit zero passes.
 *
 * @example
 * ```ts
 * import { contractFromCommand } from "./clean_verifier.ts";
 * const c = contractFromCommand("deno test", 60_000);
 * if (c.checks[0]?.name !== "verify") throw new Error();
 * ```
 */
export function contractFromCommand(
  command: string,
  timeoutMs: number,
  protect: readonly string[] = [],
): OutcomeContract {
  return {
    sourceDigest: canonicalDigest(commandContractFile(command, timeoutMs, protect)),
    description: `\`${command}\` exits 0`,
    checks: [{
      name: "verify",
      run: { shell: command },
      expect: [{ kind: "exit-zero" }],
      timeoutMs,
      baseline: false,
      differential: null,
      tests: null,
    }],
    protect,
  };
}
