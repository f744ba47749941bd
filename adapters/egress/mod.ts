/**
 * Agents reach their model and nothing else: the agent runs in its own
 * network namespace (bwrap `--unshare-net`); a proxy vouch owns, outside it,
 * forwards only to the hosts of the run's provider base URLs (and allowlisted
 * loopback model servers), refusing and recording everything else; a small
 * forwarder inside the namespace bridges to it over unix sockets (the design
 * of `@anthropic-ai/sandbox-runtime`). Fails closed: no proxy, no agent.
 *
 * @module
 */
export * from "./allowlist.ts";
export * from "./proxy.ts";
export * from "./agent_egress.ts";
