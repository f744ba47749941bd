/**
 * How the contract's commands run in one clean tree: the setup step (when
 * the contract has one), then the checks, in one of the shared check slots
 * when there are any.
 *
 * @module
 */
import type { OutcomeContract } from "../../kernel/contract/types.ts";
import { type CheckPhase, type ChecksRun, runChecks } from "../contract/run_checks.ts";
import type { SandboxProfile } from "../sandbox/profile.ts";
import type { CheckSlots } from "./check_slots.ts";
import { runSetupStep, type SetupStep, type SetupStepOptions } from "./_setup_step.ts";
import { packageScriptOf, testFormatOf } from "./_test_reports.ts";

/** What a clean tree ran: the setup step (if any) and the checks (`run` null when setup failed). */
export interface Executed {
  readonly setup: SetupStep | null;
  readonly run: ChecksRun | null;
}

/** One execution in one tree. */
export interface Execution {
  /** The clean tree's path. */
  readonly tree: string;
  /** Builds its sandbox (once the slot is taken). */
  readonly sandbox: () => Promise<SandboxProfile>;
  /** The contract's setup step, or null for none. */
  readonly setup: SetupStepOptions | null;
  /** The base's runner configs by file name. */
  readonly configs: Map<string, string>;
  readonly phase: CheckPhase;
  readonly signal: AbortSignal;
  readonly onCheck: (name: string) => void;
}

/** Runs setup and then the checks of `contract` (the caller's slots and deadline bound it). */
export async function executeContract(
  contract: OutcomeContract,
  limits: { readonly checkSlots?: CheckSlots; readonly deadline?: number },
  e: Execution,
): Promise<Executed> {
  const release = limits.checkSlots === undefined ? () => {} : await limits.checkSlots.acquire();
  try {
    const sandbox = await e.sandbox();
    const setup = e.setup !== null
      ? await runSetupStep(e.setup, e.tree, e.phase, sandbox, e.signal, e.onCheck)
      : null;
    if (setup !== null && !setup.report.ok) return { setup, run: null };
    const base = e.configs;
    const run = await runChecks(contract, {
      cwd: e.tree,
      sandbox,
      phase: e.phase,
      signal: e.signal,
      onCheck: e.onCheck,
      ...(limits.deadline !== undefined ? { deadline: limits.deadline } : {}),
      // Where the runner allows it, it also writes a structured report (ids of every test).
      reportFormat: (c) => testFormatOf(c, base),
      reportConfigTexts: [...base.values()],
      packageScript: (c) =>
        packageScriptOf(
          "shell" in c.run ? c.run.shell : c.run.argv.join(" "),
          base.get("package.json"),
        ),
      // A `deno task NAME` check: its task as the base defines it (never as the patch does).
      denoConfigs: base,
    });
    return { setup, run };
  } finally {
    release();
  }
}
