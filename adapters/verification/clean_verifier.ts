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
import type { BaselineCapture } from "../../kernel/contract/types.ts";
import { judgeBaseline, judgeContract } from "../../kernel/contract/judge.ts";
import { compileGlobs } from "../../kernel/glob/glob_set.ts";
import { tryParseGitDiff } from "../../kernel/diff/parse.ts";
import type { GitDiff } from "../../kernel/diff/types.ts";
import { canonicalDigest } from "../canonical_json/canonical_json.ts";
import { type CheckPhase, type ChecksRun, runChecks } from "../contract/run_checks.ts";
import type { CleanTree } from "../worktree/clean_tree.ts";
import { createTaskTrees } from "../worktree/task_trees.ts";
import { WorktreeError } from "../worktree/errors.ts";
import type { VerificationRun, Verifier } from "./verifier.ts";
import { DependencyCopyError } from "../deps/copy_dir.ts";
import { createDependencyProvisioner } from "../deps/provision.ts";
import type { DependencyView } from "../deps/shared.ts";
import { createCheckSandbox } from "./_check_sandbox.ts";
import { runSetupStep, setupNetworkRefusal } from "./_setup_step.ts";
import { declaredOf, sealChecks } from "./_seal_checks.ts";
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
  checkCommands,
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
import { packageScriptOf, testFormatOf } from "./_test_reports.ts";
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
  const contract = opts.contract;
  // The contract file's digest when there is one (recomputable from the file), else the model's.
  const contractDigest = contract.sourceDigest ?? canonicalDigest(contract as unknown as never);
  const isProtected = contract.protect.length > 0
    ? ((set) => (path: string) => set.matches(path))(compileGlobs(contract.protect))
    : () => false;
  const trees = createTaskTrees({
    repo: opts.repo,
    base: opts.base,
    taskId: opts.taskId,
    isProtected,
    ...(opts.worktreeRoot !== undefined ? { root: opts.worktreeRoot } : {}),
    ...(opts.pool !== undefined ? { pool: opts.pool } : {}),
    ...(opts.maxTreeUses !== undefined ? { maxUses: opts.maxTreeUses } : {}),
  });
  const sandboxFor = createCheckSandbox({
    sandbox: opts.sandbox,
    contract,
    keyStoreDir: opts.receipts.keyPath,
    ...(opts.sandboxReadOnly !== undefined ? { sandboxReadOnly: opts.sandboxReadOnly } : {}),
    ...(opts.sandboxProbe !== undefined ? { sandboxProbe: opts.sandboxProbe } : {}),
  });
  // Read-only views only where bwrap makes them read-only: of a batch's shared snapshots, or
  // (verify, run: no pool) of the user's own directories; copies without a sandbox, and for a
  // batch whose pool has no snapshots (`dependencies: "copy"`).
  const deps = createDependencyProvisioner({
    repo: opts.repo,
    hasSetup: contract.setup !== undefined,
    ...(opts.pool?.dependencies !== undefined ? { snapshots: opts.pool.dependencies } : {}),
    views: opts.sandbox !== "none" &&
      (opts.pool === undefined || opts.pool.dependencies !== undefined),
    ...(opts.onStep !== undefined ? { onStep: opts.onStep } : {}),
  });
  const setupOptions = contract.setup === undefined ? null : {
    setup: contract.setup,
    taskId: opts.taskId,
    receipts: opts.receipts,
    allowSetupNetwork: opts.allowSetupNetwork === true,
    ...(opts.deadline !== undefined ? { deadline: opts.deadline } : {}),
    declaredOf,
  };
  const networkRefusal = () => {
    const why = setupNetworkRefusal(contract.setup, opts.allowSetupNetwork === true);
    return why === null ? null : refusedRun("setup_network_not_allowed", why);
  };
  let captures: readonly BaselineCapture[] = [];
  // The baseline's per-test results (null until a baseline ran) and the lists derived from them.
  let reports: BaselineReports | null = null;
  let derived = contract;
  const testsEditable = opts.testsEditable ?? contract.testsEditable ?? false;
  const command = checkCommands(contract).join(" && ");
  // The base's runner configs (read once) and the oracle set (with the baseline's test ids).
  let configs: Promise<Map<string, string>> | null = null;
  const getConfigs = () => configs ??= baseConfigs(opts.repo, opts.base).catch(() => new Map());
  let oracle: OracleSet | null = null;
  const getOracle = async () => oracle ??= oracleFor(contract, await getConfigs(), []);

  /**
   * The contract's commands (setup, then the checks) in one of the shared check
   * slots when there are any; `run` is null when setup failed.
   */
  async function execute(
    clean: CleanTree,
    views: readonly DependencyView[],
    phase: CheckPhase,
    signal: AbortSignal,
    onCheck: (name: string) => void,
  ) {
    const tree = clean.worktree.path;
    const base = await getConfigs();
    const release = opts.checkSlots === undefined ? () => {} : await opts.checkSlots.acquire();
    try {
      const sandbox = await sandboxFor(tree, views);
      const setup = setupOptions !== null
        ? await runSetupStep(setupOptions, tree, phase, sandbox, signal, onCheck)
        : null;
      if (setup !== null && !setup.report.ok) return { setup, run: null };
      const run = await runChecks(contract, {
        cwd: tree,
        sandbox,
        phase,
        signal,
        onCheck,
        ...(opts.deadline !== undefined ? { deadline: opts.deadline } : {}),
        // Where the runner allows it, it also writes a structured report (ids of every test).
        reportFormat: (c) => testFormatOf(c, base),
        reportConfigTexts: [...base.values()],
        packageScript: (c) =>
          packageScriptOf(
            "shell" in c.run ? c.run.shell : c.run.argv.join(" "),
            base.get("package.json"),
          ),
      });
      return { setup, run };
    } finally {
      release();
    }
  }

  /** The cache's key for this base, contract and environment (null: no cache). */
  const cacheKey = () =>
    opts.baselineCache === undefined || contract.setup?.network === "allow"
      ? Promise.resolve(null)
      : baselineKey({
        repo: opts.repo,
        base: opts.base,
        contract,
        contractDigest,
        sandbox: opts.sandbox,
        sandboxReadOnly: opts.sandboxReadOnly ?? [],
      });

  async function baseline(
    signal: AbortSignal,
    onCheck: (name: string) => void,
  ): Promise<VerificationRun> {
    const cache = opts.baselineCache;
    const keyed = await cacheKey();
    if (cache !== undefined && keyed !== null) {
      const hit = await readBaselineEntry(cache, keyed.key);
      if (hit !== null) {
        captures = hit.captures;
        reports = new Map(hit.reports as [string, never][]);
        derived = withDerivedLists(contract, reports, await getConfigs());
        oracle = oracleFor(contract, await getConfigs(), idsOf(reports));
        return asReference({
          ...hit.run,
          reusedFrom: { task: hit.task, tree: hit.tree, at: hit.at },
        });
      }
    }
    const result = await runBaseline(signal, onCheck);
    if (
      cache !== undefined && keyed !== null && reports !== null && result.ran &&
      result.refusals.length === 0 && (result.cannotStart ?? []).length === 0
    ) {
      await writeBaselineEntry(cache, keyed.key, {
        task: opts.taskId,
        tree: keyed.tree,
        at: Date.now(),
        // The whole output stays in the first run's artefacts, not in every cache entry.
        run: withoutTestOutput(result),
        captures,
        reports: [...reports],
      });
    }
    return asReference(result);
  }

  async function runBaseline(
    signal: AbortSignal,
    onCheck: (name: string) => void,
  ): Promise<VerificationRun> {
    const clean = await trees.next(new Uint8Array(), signal);
    const provided = await deps.provide(clean.worktree.path, []);
    if (!provided.ok) throw new WorktreeError("apply_failed", provided.reason);
    const { setup, run } = await execute(clean, provided.views, "baseline", signal, onCheck);
    if (run === null) return setupFailedRun(setup!, "baseline");
    const judgement = judgeBaseline(contract, run.observations, {
      requireFailingBaseline: opts.requireFailingBaseline ?? false,
      allowGatesNothing: !(opts.requireFailingBaseline ?? false),
    });
    captures = judgement.captures;
    reports = baselineReports(run, await getConfigs());
    derived = withDerivedLists(contract, reports, await getConfigs());
    oracle = oracleFor(contract, await getConfigs(), idsOf(reports));
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
  function asReference(result: VerificationRun): VerificationRun {
    if (opts.baselineGates ?? true) return result;
    const { cannotStart: _, why: __, ...reference } = result;
    return { ...reference, ran: true, refusals: [], diagnostics: [] };
  }

  /** One grading: a clean tree with the patch (the base winning where `protect` says), checks run. */
  async function grade(
    patch: Uint8Array,
    diff: GitDiff | null,
    signal: AbortSignal,
    onCheck: (name: string) => void,
    second = false,
  ) {
    let clean;
    try {
      clean = await trees.next(patch, signal);
    } catch (error) {
      if (error instanceof WorktreeError) return { refused: refusedRun(error.code, error.message) };
      throw error;
    }
    const refusal = second ? null : appliedRefusal(diff, clean.applied);
    if (refusal !== null) return { refused: refusal };
    let provided;
    try {
      provided = await deps.provide(clean.worktree.path, clean.changed);
    } catch (error) {
      if (error instanceof DependencyCopyError) {
        return { refused: refusedRun(error.code, error.message) };
      }
      throw error;
    }
    if (!provided.ok) {
      return { refused: refusedRun("dependency_change_needs_setup", provided.reason) };
    }
    const { setup, run } = await execute(clean, provided.views, "round", signal, onCheck);
    return { clean, setup, run };
  }

  /**
   * The second oracle: the patch's non-oracle part against the BASE's tests
   * (every oracle file restored from the base), in its own clean tree.
   */
  async function gradeAgainstBase(
    view: PatchOracleView,
    round: { run: ChecksRun; tree: string },
    signal: AbortSignal,
    onCheck: (name: string) => void,
  ) {
    const inPatch = view.touched.filter((t) => existsSync(join(round.tree, t.path)));
    const graded = await grade(view.rest, null, signal, onCheck, true);
    if ("refused" in graded) return { refused: graded.refused! };
    if (graded.run === null) return { refused: setupFailedRun(graded.setup!, "round") };
    const tree = graded.clean.worktree.path;
    const exit = judgeContract(contract, graded.run.observations, captures);
    const judged = judgeBaseGrading({
      contract,
      derived,
      round: round.run,
      base: graded.run,
      exitPassed: new Map(exit.checks.map((j) => [j.name, j.status === "passed"])),
      tree,
      baselineRan: reports !== null,
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

  async function verify(
    round: number,
    patch: Uint8Array,
    signal: AbortSignal,
    onCheck: (name: string) => void,
    given: GitDiff | undefined,
  ): Promise<VerificationRun> {
    // The round's patch is parsed once: the driver's (from its scope check) when it has it.
    const parsed = given !== undefined ? null : tryParseGitDiff(patch);
    const diff = given ?? (parsed?.ok === true ? parsed.diff : null);
    const first = await grade(patch, diff, signal, onCheck);
    if ("refused" in first) return first.refused;
    const { clean, setup, run } = first;
    if (run === null) return setupFailedRun(setup!, "round");
    const tree = clean.worktree.path;
    const view = await patchOracleView(
      patch,
      diff,
      await getOracle(),
      await getConfigs(),
      tree,
      command,
    );
    const touched = view?.touched ?? [];
    // A patch that touches no oracle file is judged per test against the baseline's lists.
    const judgeWith = touched.length === 0 ? derived : contract;
    const judgement = judgeContract(judgeWith, readTests(judgeWith, run), captures);
    const receipts = await sealChecks(opts.receipts, opts.taskId, "round", run, judgement.checks);
    const parts = { contract, base: opts.base, run, setup, receipts, tree };
    const result = roundRun(parts, round, judgement, captures, clean);
    if (touched.length === 0) {
      return withOracle(result, untouchedReport(derived, reports !== null, testsEditable), null);
    }
    if (testsEditable) return withOracle(result, editableReport(touched), null);
    if ((result.cannotStart ?? []).length > 0) return result;
    const graded = await gradeAgainstBase(view!, { run, tree }, signal, onCheck);
    if (!("second" in graded)) {
      const refused = graded.refused;
      return {
        ...refused,
        why: `Cannot grade the patch against the base's tests: ${refused.why ?? "refused"}`,
      };
    }
    return withOracle(result, twoOraclesReport(touched, graded.second.judged), graded.second);
  }

  return {
    contractDigest,
    settle: () => trees.settle(),
    async baseline(signal, onCheck) {
      const refusal = networkRefusal();
      if (refusal !== null) return asReference(refusal);
      try {
        return await baseline(signal, onCheck);
      } catch (error) {
        return refusedRun(
          error instanceof WorktreeError ? error.code : "baseline_failed",
          error instanceof Error ? error.message : String(error),
        );
      }
    },
    verify(round, patch, signal, onCheck, diff) {
      const refusal = networkRefusal();
      return refusal !== null
        ? Promise.resolve(refusal)
        : verify(round, patch, signal, onCheck, diff);
    },
  };
}

function withoutTestOutput(run: VerificationRun): VerificationRun {
  const { testOutput: _, ...rest } = run;
  return rest;
}
