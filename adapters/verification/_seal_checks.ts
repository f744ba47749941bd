/**
 * Sealing a phase's checks: one MAC'd receipt per check that ran, in contract
 * order, recorded AFTER the judgement, each sealing the outcome the judgement
 * gave its check (so the log's result events can be re-derived from their
 * receipts).
 *
 * @module
 */
import type { CheckJudgement } from "../../kernel/contract/types.ts";
import type { ChecksRun } from "../contract/run_checks.ts";
import type { ReceiptRecorder } from "../receipts/chain.ts";
import { receiptInputFromProcess, type ToolReceipt } from "../receipts/receipt.ts";
import { sandboxLabel, type SandboxProfile } from "../sandbox/profile.ts";
import { outcomeOf } from "./_run_builder.ts";

/** The paths a profile declares read-only (recorded in receipts). */
export const declaredOf = (p: SandboxProfile): readonly string[] =>
  p.kind === "bwrap" ? p.declaredReadOnly ?? [] : [];

/**
 * Records the receipts of `run`'s checks under `<phase>:<prefix><check>` (the
 * prefix names a second grading: `round:base-tests:verify`).
 */
export async function sealChecks(
  recorder: ReceiptRecorder,
  taskId: string,
  phase: string,
  run: ChecksRun,
  judged: readonly CheckJudgement[],
  prefix = "",
): Promise<Map<string, ToolReceipt>> {
  const outcomes = new Map(judged.map((j) => [j.name, outcomeOf(j)]));
  const receipts = new Map<string, ToolReceipt>();
  for (const [name, result] of run.results) {
    const outcome = outcomes.get(name);
    const input = receiptInputFromProcess(
      taskId,
      `${phase}:${prefix}${name}`,
      result,
      run.started.get(name)!,
      sandboxLabel(run.sandbox),
      declaredOf(run.sandbox),
    );
    receipts.set(
      name,
      await recorder.record(outcome === undefined ? input : { ...input, outcome }),
    );
  }
  return receipts;
}
