/**
 * `vouch evaluate`: judge a result bundle made elsewhere, without running it.
 *
 * @module
 */
import { visible } from "../../adapters/text/mod.ts";
import { JSON_FLAG, parseCommandLine } from "./_flags.ts";
import { evaluateBundle } from "../../adapters/bundle/isolated.ts";
import type { VerificationResult } from "../../kernel/bundle/types.ts";
import { type CliCommand, EXIT, UsageError } from "../command.ts";
import { listedCommand } from "./_listed.ts";

const HELP = `vouch evaluate: judge a result bundle (never executes it)

Usage:
  vouch evaluate --bundle DIR --work-unit FILE --plan FILE [--json]

The bundle directory holds result-manifest.json (the worker's claim) and the
files it declares. The WorkUnit (path authority, required validators) and the
EvaluatorPlan (v0.1 exact-JSON or v0.2 unified_diff) are verifier-owned and
must live outside the bundle. The evaluation runs in a child process of the
same runtime that may only read those three paths (and its own code): under
Deno with Deno's permission flags, under Node 20+ with Node's permission model
(--permission, or --experimental-permission on Node 20). Where no such child
can be started (a Node without the permission model, the single executable),
vouch refuses (isolation_unavailable) rather than evaluate unisolated.

Options:
  --bundle DIR       the candidate root
  --work-unit FILE   the WorkUnit JSON
  --plan FILE        the EvaluatorPlan JSON
  --json             print the VerificationResult as JSON

Examples:
  vouch evaluate --bundle out/attempt-1 --work-unit wu.json --plan plan.json
  vouch evaluate --bundle out/attempt-1 --work-unit wu.json --plan plan.json --json | jq .decision_support
`;

/**
 * Renders a VerificationResult as a short readable summary.
 *
 * @example
 * ```ts
 * import { renderVerificationResult } from "./evaluate.ts";
 * import { unjudgeableResult } from "../../kernel/bundle/judge.ts";
 * const text = renderVerificationResult(unjudgeableResult("plan_invalid", "missing"));
 * if (!text.includes("insufficient_evidence")) throw new Error("unexpected");
 * ```
 */
export function renderVerificationResult(result: VerificationResult): string {
  const d = result.decision_support;
  const lines = [
    `recommendation: ${d.recommendation} (${result.status}, confidence ${d.confidence})`,
    `work unit: ${result.work_unit_id ?? "-"}@${result.work_unit_version ?? "-"}  manifest: ${
      result.result_manifest_id ?? "-"
    }  worker: ${result.independence.worker_id_observed ?? "-"}`,
  ];
  if (result.checks.length > 0) lines.push("checks:");
  for (const c of result.checks) lines.push(`  ${c.status.padEnd(12)} ${c.id}: ${c.summary}`);
  if (result.findings.length > 0) lines.push("findings:");
  for (const f of result.findings) {
    // Worker-controlled text is shown escaped, never raw (no ANSI, no overprinting).
    const where = f.path === undefined ? "" : ` [${JSON.stringify(f.path)}]`;
    lines.push(`  ${f.code}${where}: ${JSON.stringify(f.summary).slice(1, -1)}`);
  }
  lines.push(`rationale: ${JSON.stringify(d.rationale).slice(1, -1)}`);
  return lines.join("\n") + "\n";
}

/** The `evaluate` command. */
export const evaluateCommand: CliCommand = {
  ...listedCommand("evaluate", HELP, { 0: "accept_candidate", 1: "any other recommendation" }),
  async run(args, io) {
    const { values, positionals } = parseCommandLine(args, {
      bundle: { type: "string" },
      "work-unit": { type: "string" },
      plan: { type: "string" },
      ...JSON_FLAG,
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
    const bundleDir = values.bundle;
    const workUnitPath = values["work-unit"];
    const planPath = values.plan;
    if (bundleDir === undefined) throw new UsageError("--bundle DIR is required");
    if (workUnitPath === undefined) throw new UsageError("--work-unit FILE is required");
    if (planPath === undefined) throw new UsageError("--plan FILE is required");
    const result = await evaluateBundle({ bundleDir, workUnitPath, planPath });
    io.out(
      values.json
        ? JSON.stringify(result, null, 2) + "\n"
        : visible(renderVerificationResult(result)),
    );
    return result.decision_support.recommendation === "accept_candidate" ? EXIT.ok : EXIT.rejected;
  },
};
