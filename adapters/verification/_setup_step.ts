/**
 * The setup step of a clean verification: the contract's setup commands run in
 * the clean tree before the checks, one MAC'd receipt each, with the network
 * only when the contract asks for it AND the caller allows it.
 *
 * @module
 */
import type { ContractSetup } from "../../kernel/contract/types.ts";
import { runSetup, type SetupReport } from "../deps/setup.ts";
import type { ReceiptRecorder } from "../receipts/chain.ts";
import { receiptInputFromProcess, type ToolReceipt } from "../receipts/receipt.ts";
import { sandboxLabel, type SandboxProfile, withSetupNetwork } from "../sandbox/profile.ts";

/** What the setup step did: its report, one receipt per command, the sandbox label. */
export interface SetupStep {
  readonly report: SetupReport;
  readonly receipts: readonly ToolReceipt[];
  readonly sandbox: string;
}

/** What the setup step needs. */
export interface SetupStepOptions {
  readonly setup: ContractSetup;
  readonly taskId: string;
  readonly receipts: ReceiptRecorder;
  readonly allowSetupNetwork: boolean;
  readonly deadline?: number;
  /** The paths the profile declares read-only (recorded in receipts). */
  readonly declaredOf: (p: SandboxProfile) => readonly string[];
}

/** The refusal message when setup wants the network and the policy does not allow it, or null. */
export function setupNetworkRefusal(
  setup: ContractSetup | undefined,
  allowSetupNetwork: boolean,
): string | null {
  if (setup?.network !== "allow" || allowSetupNetwork) return null;
  return 'Cannot run setup: the contract\'s setup asks for the network (network: "allow") but the ' +
    "policy does not allow it; nothing was run. Pass --allow-setup-network to let setup " +
    "commands (never checks) reach the network.";
}

/** Runs the contract's setup commands in the tree, one MAC'd receipt each. */
export async function runSetupStep(
  opts: SetupStepOptions,
  tree: string,
  phase: "baseline" | "round",
  sandbox: SandboxProfile,
  signal: AbortSignal,
  onCheck: (name: string) => void,
): Promise<SetupStep> {
  const setup = opts.setup;
  const profile = setup.network === "allow" && opts.allowSetupNetwork
    ? withSetupNetwork(sandbox)
    : sandbox;
  const label = sandboxLabel(profile);
  const receipts: ToolReceipt[] = [];
  let index = 0;
  onCheck("setup");
  const report = await runSetup(setup.commands, {
    tree,
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
            opts.declaredOf(profile),
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

/** The setup step as evidence (what ran, how it ended). */
export function setupEvidence(run: SetupStep): Record<string, unknown> {
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
