/**
 * The agent's network for {@linkcode confinedBackend}: its egress proxy
 * started per task (fail closed), the sandbox confined to it, and the
 * refusals of a round put where people and the event log see them (the
 * result's risks, its decisions, a live warning).
 *
 * @module
 */
import { type AgentEgress, refusalWords, startAgentEgress } from "../egress/agent_egress.ts";
import type { EgressHost } from "../egress/allowlist.ts";
import type { EgressRefusal } from "../egress/proxy.ts";
import type { BwrapSandbox } from "../sandbox/profile.ts";
import {
  type AgentDecision,
  type BackendContext,
  type BackendFailure,
  type BackendResult,
  MAX_DECISIONS,
} from "../backends/types.ts";

/**
 * What an agent may reach: the hosts its egress proxy forwards to, or
 * `"host"`: the host network, unfiltered and unrecorded (the loud opt-out).
 */
export type AgentNetwork = { readonly allow: readonly EgressHost[] } | "host";

/** The words of the opt-out, on every run that uses it. */
export const OPEN_NETWORK_WARNING =
  "AGENT NETWORK NOT FILTERED (--agent-network host): the agent shares this machine's network; " +
  "what it sends anywhere is neither refused nor recorded";

/** A started egress and the context its live refusals go to (the current round's). */
export interface TaskNetwork {
  readonly egress: AgentEgress;
  ctx: BackendContext | null;
}

/**
 * Starts the egress for one task in `dir`, or the failure that stops the run
 * (`egress_unavailable`: the agent never starts with an open network instead).
 */
export async function startTaskNetwork(
  dir: string,
  allow: readonly EgressHost[],
  sandbox: BwrapSandbox,
): Promise<TaskNetwork | BackendFailure> {
  const holder: { net: TaskNetwork | null } = { net: null };
  try {
    const egress = await startAgentEgress({
      dir,
      allow,
      sandbox,
      onRefused: (r) => {
        const ctx = holder.net?.ctx;
        try {
          ctx?.emit({ kind: "error", message: `vouch ${refusalWords(r)}`, fatal: false });
        } catch {
          // a broken sink never changes the run
        }
      },
    });
    holder.net = { egress, ctx: null };
    return holder.net;
  } catch (error) {
    const code = (error as { code?: string }).code ?? "egress_unavailable";
    const message = error instanceof Error ? error.message : String(error);
    return { code: "config", message: `${code}: ${message}`, retryable: false };
  }
}

/** The agent's profile inside its egress. */
export function confineNetwork(net: TaskNetwork, profile: BwrapSandbox): BwrapSandbox {
  return net.egress.confine(profile);
}

/**
 * The round's result with its egress refusals recorded: each as a risk
 * (`refused network: CONNECT h:443 (...)`, shown by the summary and `--json`)
 * and as a decision (`network`, denied, in the hash-chained event log).
 *
 * @example
 * ```ts ignore
 * const recorded = withEgressRecord(result, await net.egress.proxy.takeRefusals());
 * ```
 */
export function withEgressRecord(
  result: BackendResult,
  refusals: readonly EgressRefusal[],
): BackendResult {
  if (refusals.length === 0) return result;
  const decisions: AgentDecision[] = refusals.map((r) => ({
    effect: "network",
    kind: r.method,
    paths: [`${r.host}:${r.port}`],
    answer: "deny",
    reason: "egress_denied",
    by: "egress allowlist",
  }));
  const words = [...new Set(refusals.map(refusalWords))];
  return {
    ...result,
    risks: [...result.risks, ...words].slice(0, 200),
    decisions: [...(result.decisions ?? []), ...decisions].slice(0, MAX_DECISIONS),
  };
}

/** The result of a run on the host network, saying so. */
export function withOpenNetworkNote(result: BackendResult): BackendResult {
  return { ...result, risks: [...result.risks, OPEN_NETWORK_WARNING] };
}
