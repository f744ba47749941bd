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
import type { BaselineCapture, OutcomeContract } from "../../kernel/contract/types.ts";
import { judgeBaseline, judgeContract } from "../../kernel/contract/judge.ts";
import { tryParseGitDiff } from "../../kernel/diff/parse.ts";
import type { GitDiff } from "../../kernel/diff/types.ts";
import type { CheckPhase, ChecksRun } from "../contract/run_checks.ts";
import type { CleanTree } from "../worktree/clean_tree.ts";
import { WorktreeError } from "../worktree/errors.ts";
import type { VerificationRun, Verifier } from "./verifier.ts";
import { DependencyCopyError } from "../deps/copy_dir.ts";
import type { DependencyView } from "../deps/shared.ts";
import { setupNetworkRefusal, type SetupStepOptions } from "./_setup_step.ts";
import { sealChecks } from "./_seal_checks.ts";
import { type VerifierParts, verifierParts } from "./_verifier_parts.ts";
import {
  appliedRefusal,
  BASE_TESTS,
  baselineRun,
  refusedRun,
  roundRun,
  setupFailedRun,
  withOracle,
} from "./_run_builder.ts";
import {
  baseConfigs,
  mayTouchOracle,
  oracleFor,
  type PatchOracleView,
  patchOracleView,
} from "./oracle_of.ts";
import type { OracleSet } from "../../kernel/oracle/types.ts";
import {
  type BaselineReports,
  baselineReports,
  editableReport,
  judgeBaseGrading,
  readTests,
  twoOraclesReport,
  untouchedReport,
  withDerivedLists,
} from "./_oracle_grading.ts";
import { existsSync } from "node:fs";
import { executeContract, type Executed } from "./_execute.ts";
import { join } from "node:path";
import { baselineKey, readBaselineEntry, writeBaselineEntry } from "./baseline_cache.ts";

/** Every test id a baseline's reports name. */
function idsOf(reports: BaselineReports): string[] {
  return [...reports.values()].flatMap((r) =>
    r === null ? [] : [...r.failing, ...(r.passing ?? [])]
  );
}

export { commandContractFile, contractFromCommand } from "../contract/from_command.ts";
import type { CleanVerifierOptions } from "./_options.ts";
export type { CleanVerifierOptions, SetupRefusalCode } from "./_options.ts";

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
  const v = new CleanVerifier(opts);
  // A plain object of own functions: callers may spread it (and wrap one method).
  return {
    contractDigest: v.contractDigest,
    settle: () => v.settle(),
    baseline: (signal, onCheck) => v.baseline(signal, onCheck),
    verify: (round, patch, signal, onCheck, diff) => v.verify(round, patch, signal, onCheck, diff),
  };
}

/**
 * One task's clean verification: its trees, sandbox and dependency
 * provisioning, and what the baseline taught it (captures, per-test reports,
 * the lists derived from them, the oracle set).
 */
class CleanVerifier implements Verifier {
  readonly contractDigest: string;
  readonly #opts: CleanVerifierOptions;
  readonly #contract: OutcomeContract;
  readonly #trees: VerifierParts["trees"];
  readonly #sandbox: VerifierParts["sandbox"];
  readonly #deps: VerifierParts["deps"];
  readonly #setupOptions: SetupStepOptions | null;
  readonly #testsEditable: boolean;
  #captures: readonly BaselineCapture[] = [];
  /** The baseline's per-test results (null until a baseline ran). */
  #reports: BaselineReports | null = null;
  /** The contract with the lists derived from the baseline's reports. */
  #derived: OutcomeContract;
  /** The base's runner configs (read once). */
  #configs: Promise<Map<string, string>> | null = null;
  /** The oracle set (with the baseline's test ids). */
  #oracle: OracleSet | null = null;

  constructor(opts: CleanVerifierOptions) {
    const contract = opts.contract;
    this.#opts = opts;
    this.#contract = contract;
    this.#derived = contract;
    this.#testsEditable = opts.testsEditable ?? contract.testsEditable ?? false;
    const parts = verifierParts(opts);
    this.#sandbox = parts.sandbox;
    this.#deps = parts.deps;
    this.#setupOptions = parts.setupOptions;
    this.contractDigest = parts.contractDigest;
    this.#trees = parts.trees;
  }

  /** Waits for the task's trees to be removed. */
  settle(): Promise<void> {
    return this.#trees.settle();
  }

  /** The contract on the untouched base (from the baseline cache when it holds it). */
  async baseline(signal: AbortSignal, onCheck: (name: string) => void): Promise<VerificationRun> {
    const refusal = this.#networkRefusal();
    if (refusal !== null) return this.#asReference(refusal);
    try {
      return await this.#cachedBaseline(signal, onCheck);
    } catch (error) {
      return refusedRun(
        error instanceof WorktreeError ? error.code : "baseline_failed",
        error instanceof Error ? error.message : String(error),
      );
    }
  }

  /** The contract on the base with the round's patch applied, graded by the oracle rule. */
  readonly verify: Verifier["verify"] = (round, patch, signal, onCheck, diff) => {
    const refusal = this.#networkRefusal();
    return refusal !== null
      ? Promise.resolve(refusal)
      : this.#verify(round, patch, signal, onCheck, diff);
  };

  #networkRefusal(): VerificationRun | null {
    const allowed = this.#opts.allowSetupNetwork === true;
    const why = setupNetworkRefusal(this.#contract.setup, allowed);
    return why === null ? null : refusedRun("setup_network_not_allowed", why);
  }

  #getConfigs(): Promise<Map<string, string>> {
    return this.#configs ??= baseConfigs(this.#opts.repo, this.#opts.base)
      .catch(() => new Map());
  }

  async #getOracle(): Promise<OracleSet> {
    return this.#oracle ??= oracleFor(this.#contract, await this.#getConfigs(), []);
  }

  /** What the baseline taught: its captures, its per-test reports and what they derive. */
  async #learn(captures: readonly BaselineCapture[], reports: BaselineReports): Promise<void> {
    const configs = await this.#getConfigs();
    this.#captures = captures;
    this.#reports = reports;
    this.#derived = withDerivedLists(this.#contract, reports, configs);
    this.#oracle = oracleFor(this.#contract, configs, idsOf(reports));
  }

  /** The contract's commands (setup, then the checks) in the clean tree; see `executeContract`. */
  async #execute(
    clean: CleanTree,
    views: readonly DependencyView[],
    phase: CheckPhase,
    signal: AbortSignal,
    onCheck: (name: string) => void,
  ): Promise<Executed> {
    const tree = clean.worktree.path;
    return await executeContract(this.#contract, this.#opts, {
      tree,
      sandbox: () => this.#sandbox.profile(tree, views),
      setup: this.#setupOptions,
      configs: await this.#getConfigs(),
      phase,
      signal,
      onCheck,
    });
  }

  /** The cache's key for this base, contract and environment (null: no cache). */
  #cacheKey() {
    const opts = this.#opts;
    return opts.baselineCache === undefined || this.#contract.setup?.network === "allow"
      ? Promise.resolve(null)
      : baselineKey({
        repo: opts.repo,
        base: opts.base,
        contract: this.#contract,
        contractDigest: this.contractDigest,
        sandbox: opts.sandbox,
        sandboxReadOnly: opts.sandboxReadOnly ?? [],
      });
  }

  async #cachedBaseline(
    signal: AbortSignal,
    onCheck: (name: string) => void,
  ): Promise<VerificationRun> {
    const cache = this.#opts.baselineCache;
    const keyed = await this.#cacheKey();
    if (cache !== undefined && keyed !== null) {
      const hit = await readBaselineEntry(cache, keyed.key);
      if (hit !== null) {
        await this.#learn(hit.captures, new Map(hit.reports as [string, never][]));
        return this.#asReference({
          ...hit.run,
          reusedFrom: { task: hit.task, tree: hit.tree, at: hit.at },
        });
      }
    }
    const result = await this.#runBaseline(signal, onCheck);
    const reports = this.#reports;
    if (
      cache !== undefined && keyed !== null && reports !== null && result.ran &&
      result.refusals.length === 0 && (result.cannotStart ?? []).length === 0
    ) {
      await writeBaselineEntry(cache, keyed.key, {
        task: this.#opts.taskId,
        tree: keyed.tree,
        at: Date.now(),
        // The whole output stays in the first run's artefacts, not in every cache entry.
        run: withoutTestOutput(result),
        captures: this.#captures,
        reports: [...reports],
      });
    }
    return this.#asReference(result);
  }

  async #runBaseline(
    signal: AbortSignal,
    onCheck: (name: string) => void,
  ): Promise<VerificationRun> {
    const opts = this.#opts;
    const contract = this.#contract;
    const clean = await this.#trees.next(new Uint8Array(), signal);
    const provided = await this.#deps.provide(clean.worktree.path, []);
    if (!provided.ok) throw new WorktreeError("apply_failed", provided.reason);
    const { setup, run } = await this.#execute(clean, provided.views, "baseline", signal, onCheck);
    if (run === null) return setupFailedRun(setup!, "baseline");
    const judgement = judgeBaseline(contract, run.observations, {
      requireFailingBaseline: opts.requireFailingBaseline ?? false,
      allowGatesNothing: !(opts.requireFailingBaseline ?? false),
    });
    await this.#learn(judgement.captures, baselineReports(run, await this.#getConfigs()));
    const receipts = await sealChecks(
      opts.receipts,
      opts.taskId,
      "baseline",
      run,
      judgement.before,
    );
    const parts = { contract, base: opts.base, run, setup, receipts, tree: clean.worktree.path };
    return baselineRun(parts, judgement);
  }

  /**
   * A baseline that only is the reference (`baselineGates: false`): whatever the
   * base shows (a check or setup that cannot run there), the rounds are judged.
   */
  #asReference(result: VerificationRun): VerificationRun {
    if (this.#opts.baselineGates ?? true) return result;
    const { cannotStart: _, why: __, ...reference } = result;
    return { ...reference, ran: true, refusals: [], diagnostics: [] };
  }

  /** One grading: a clean tree with the patch (the base winning where `protect` says), checks run. */
  async #grade(
    patch: Uint8Array,
    diff: GitDiff | null,
    signal: AbortSignal,
    onCheck: (name: string) => void,
    second: boolean,
    last: boolean,
  ): Promise<{ refused: VerificationRun } | { clean: CleanTree } & Executed> {
    let clean;
    try {
      clean = await this.#trees.next(patch, signal, last);
    } catch (error) {
      if (error instanceof WorktreeError) return { refused: refusedRun(error.code, error.message) };
      throw error;
    }
    const refusal = second ? null : appliedRefusal(diff, clean.applied);
    if (refusal !== null) return { refused: refusal };
    let provided;
    try {
      provided = await this.#deps.provide(clean.worktree.path, clean.changed);
    } catch (error) {
      if (error instanceof DependencyCopyError) {
        return { refused: refusedRun(error.code, error.message) };
      }
      throw error;
    }
    if (!provided.ok) {
      return { refused: refusedRun(provided.code, provided.reason) };
    }
    const { setup, run } = await this.#execute(clean, provided.views, "round", signal, onCheck);
    return { clean, setup, run };
  }

  /**
   * The second oracle: the patch's non-oracle part against the BASE's tests
   * (every oracle file restored from the base), in its own clean tree.
   */
  async #gradeAgainstBase(
    view: PatchOracleView,
    round: { run: ChecksRun; tree: string; last: boolean },
    signal: AbortSignal,
    onCheck: (name: string) => void,
  ) {
    const opts = this.#opts;
    const contract = this.#contract;
    const inPatch = view.touched.filter((t) => existsSync(join(round.tree, t.path)));
    const graded = await this.#grade(view.rest, null, signal, onCheck, true, round.last);
    if ("refused" in graded) return { refused: graded.refused };
    if (graded.run === null) return { refused: setupFailedRun(graded.setup!, "round") };
    const tree = graded.clean.worktree.path;
    const exit = judgeContract(contract, graded.run.observations, this.#captures);
    const judged = judgeBaseGrading({
      contract,
      derived: this.#derived,
      round: round.run,
      base: graded.run,
      exitPassed: new Map(exit.checks.map((j) => [j.name, j.status === "passed"])),
      tree,
      baselineRan: this.#reports !== null,
      rewrittenFiles: new Set(
        inPatch.filter((t) => existsSync(join(tree, t.path))).map((t) => t.path),
      ),
    });
    const outcomes = [...judged].map(([name, j]) => ({
      name,
      status: j.verdict === "passed" ? "passed" as const : "failed" as const,
      reasons: [],
      failingTests: [],
    }));
    const receipts = await sealChecks(
      opts.receipts,
      opts.taskId,
      "round",
      graded.run,
      outcomes,
      BASE_TESTS,
    );
    const parts = {
      contract,
      base: opts.base,
      run: graded.run,
      setup: graded.setup,
      receipts,
      tree,
    };
    return { second: { parts, judged } };
  }

  async #verify(
    round: number,
    patch: Uint8Array,
    signal: AbortSignal,
    onCheck: (name: string) => void,
    given: GitDiff | undefined,
  ): Promise<VerificationRun> {
    const opts = this.#opts;
    const contract = this.#contract;
    const derived = this.#derived;
    // The round's patch is parsed once: the driver's (from its scope check) when it has it.
    const parsed = given !== undefined ? null : tryParseGitDiff(patch);
    const diff = given ?? (parsed?.ok === true ? parsed.diff : null);
    const last = opts.rounds !== undefined && round >= opts.rounds;
    // A patch that may touch the oracle is graded twice: its tree is used again.
    const twice = !this.#testsEditable && mayTouchOracle(contract, diff);
    const first = await this.#grade(patch, diff, signal, onCheck, false, last && !twice);
    if ("refused" in first) return first.refused;
    const { clean, setup, run } = first;
    if (run === null) return setupFailedRun(setup!, "round");
    const tree = clean.worktree.path;
    const view = await patchOracleView(
      patch,
      diff,
      await this.#getOracle(),
      await this.#getConfigs(),
      tree,
      contract,
    );
    const touched = view?.touched ?? [];
    // A patch that touches no oracle file is judged per test against the baseline's lists.
    const judgeWith = touched.length === 0 ? derived : contract;
    const judgement = judgeContract(judgeWith, readTests(judgeWith, run), this.#captures);
    const receipts = await sealChecks(opts.receipts, opts.taskId, "round", run, judgement.checks);
    const parts = { contract, base: opts.base, run, setup, receipts, tree };
    const result = roundRun(parts, round, judgement, this.#captures, clean);
    if (touched.length === 0) {
      const report = untouchedReport(derived, this.#reports !== null, this.#testsEditable);
      return withOracle(result, report, null);
    }
    if (this.#testsEditable) return withOracle(result, editableReport(touched), null);
    if ((result.cannotStart ?? []).length > 0) return result;
    const graded = await this.#gradeAgainstBase(view!, { run, tree, last }, signal, onCheck);
    if (!("second" in graded)) {
      const refused = graded.refused;
      return {
        ...refused,
        why: `Cannot grade the patch against the base's tests: ${refused.why ?? "refused"}`,
      };
    }
    return withOracle(result, twoOraclesReport(touched, graded.second.judged), graded.second);
  }
}

function withoutTestOutput(run: VerificationRun): VerificationRun {
  const { testOutput: _, ...rest } = run;
  return rest;
}
