/**
 * The parts a clean verifier is built from, wired from its options: the
 * checks' sandbox, dependency provisioning, the contract's setup step and
 * digest, and the task's clean trees.
 *
 * @module
 */
import { compileGlobs } from "../../kernel/glob/glob_set.ts";
import { canonicalDigest } from "../canonical_json/canonical_json.ts";
import { createDependencyProvisioner } from "../deps/provision.ts";
import { createTaskTrees } from "../worktree/task_trees.ts";
import { createCheckSandbox } from "./_check_sandbox.ts";
import type { CleanVerifierOptions } from "./_options.ts";
import { declaredOf } from "./_seal_checks.ts";
import type { SetupStepOptions } from "./_setup_step.ts";

/** What {@linkcode verifierParts} wires. */
export interface VerifierParts {
  readonly sandbox: ReturnType<typeof createCheckSandbox>;
  readonly deps: ReturnType<typeof createDependencyProvisioner>;
  readonly setupOptions: SetupStepOptions | null;
  /** The contract file's digest when there is one (recomputable from the file), else the model's. */
  readonly contractDigest: string;
  readonly trees: ReturnType<typeof createTaskTrees>;
}

/** Wires the parts of a clean verifier from its options. */
export function verifierParts(opts: CleanVerifierOptions): VerifierParts {
  const contract = opts.contract;
  const sandbox = createCheckSandbox({
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
  });
  return { sandbox, deps, setupOptions, contractDigest, trees };
}
