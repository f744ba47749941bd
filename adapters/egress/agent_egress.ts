/**
 * An agent's egress: the proxy outside its sandbox plus the forwarder inside,
 * wired into its bwrap profile (own network namespace, the forwarder as the
 * profile's launcher, the proxy variables set for the agent).
 *
 * @module
 */
import { existsSync, realpathSync, renameSync, writeFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { basename, join } from "node:path";
import process from "node:process";
import type { BwrapSandbox } from "../sandbox/profile.ts";
import { withPrograms } from "../sandbox/bwrap.ts";
import { EgressError, type EgressHost } from "./allowlist.ts";
import { type EgressProxy, type EgressRefusal, launchEgressProxy, proxySandbox } from "./proxy.ts";
import { FORWARDER_SOURCE } from "./_forwarder_source.ts";

/** The port the HTTP proxy listens on inside the sandbox (another when a model server uses it). */
export const SANDBOX_PROXY_PORT = 3128;

/** Variables pointing every HTTP client at the in-sandbox proxy. */
const PROXY_VARS = [
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "ALL_PROXY",
  "http_proxy",
  "https_proxy",
  "all_proxy",
];
/** Variables the forwarder removes (a forwarded bypass list would skip vouch's proxy). */
const UNSET_VARS = ["NO_PROXY", "no_proxy"];

/** A running egress for one agent. */
export interface AgentEgress {
  /** The proxy (refusals, forwarded connections). */
  readonly proxy: EgressProxy;
  /**
   * `null` once the proxy listens (the forwarder's gate opened), else the
   * `egress_unavailable` error: the gate closed, the agent never started, and
   * the run fails with it.
   */
  readonly ready: Promise<EgressError | null>;
  /** The agent's profile confined to this egress. */
  confine(profile: BwrapSandbox): BwrapSandbox;
  /** Stops the proxy. */
  close(): Promise<void>;
}

/**
 * The runtime that runs vouch's egress scripts (the forwarder inside the
 * sandbox, the proxy helper outside): vouch's own when it is node or deno,
 * else `node` on PATH, else null.
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { forwarderRuntime } from "./agent_egress.ts";
 * ok(forwarderRuntime()?.[0]?.startsWith("/"));
 * ```
 */
export function forwarderRuntime(
  execPath: string = process.execPath,
  path: string = process.env["PATH"] ?? "",
): string[] | null {
  const name = basename(execPath);
  if (/^deno/.test(name)) {
    return [execPath, "run", "--allow-all", "--no-config", "--no-lock", "--quiet", "--no-prompt"];
  }
  if (/^node/.test(name)) return [execPath];
  for (const dir of path.split(":")) {
    if (dir.startsWith("/") && existsSync(join(dir, "node"))) {
      return [realpathSync(join(dir, "node"))];
    }
  }
  return null;
}

/**
 * Starts the proxy for an agent whose sandbox uses `dir` (a fresh private
 * directory that the sandbox mounts read-write: the sockets and the script
 * live there), without waiting for it: the agent's sandbox starts meanwhile,
 * its forwarder listening but holding the agent until vouch opens the gate
 * (a file in `dir`) when the proxy listens. Fails closed: when the proxy
 * cannot start the gate closes, the forwarder exits 125 without starting the
 * agent, and `ready` holds the `egress_unavailable` error for the run; with
 * no runtime for the forwarder this throws it, so the agent never starts
 * with an open network instead.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { mkdtempSync, rmSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { startAgentEgress } from "./agent_egress.ts";
 * import { agentProfile } from "../sandbox/agent_profile.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-egress-"));
 * const sandbox = agentProfile({ worktree: dir, scratch: dir, bwrapPath: "/usr/bin/bwrap", home: "/nonexistent" });
 * const egress = await startAgentEgress({ dir, sandbox, allow: [{ host: "127.0.0.1", port: 4010 }] });
 * const p = egress.confine(sandbox);
 * equal(p.shareNetwork, false);
 * equal(await egress.ready, null);
 * equal(p.launcher?.at(-1)?.endsWith("forwarder.json"), true);
 * await egress.close();
 * rmSync(dir, { recursive: true, force: true });
 * ```
 */
export async function startAgentEgress(options: {
  readonly dir: string;
  readonly allow: readonly EgressHost[];
  /** The agent's profile: the proxy helper runs in its root with only its sockets visible. */
  readonly sandbox: BwrapSandbox;
  readonly onRefused?: (refusal: EgressRefusal) => void;
}): Promise<AgentEgress> {
  const runtime = forwarderRuntime();
  if (runtime === null) {
    throw new EgressError(
      "egress_unavailable",
      "Cannot confine the agent's network: no node or deno runtime for the egress forwarder; " +
        "the agent is not started",
    );
  }
  const dir = join(options.dir, "egress");
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new EgressError("egress_unavailable", `Cannot create ${dir}: ${String(error)}`);
  }
  const evalPrefix = runtime.length > 1
    ? [runtime[0]!, "eval", "--quiet", "--no-config", "--no-lock", "--ext=js"]
    : [runtime[0]!, "--input-type=module", "-e"];
  const proxy = launchEgressProxy({
    dir,
    allow: options.allow,
    sandbox: proxySandbox(options.sandbox, dir),
    evalPrefix,
    ...(options.onRefused !== undefined ? { onRefused: options.onRefused } : {}),
  });
  const taken = new Set(proxy.relays.map((r) => r.port));
  let proxyPort = SANDBOX_PROXY_PORT;
  while (taken.has(proxyPort)) proxyPort++;
  const proxyUrl = `http://127.0.0.1:${proxyPort}`;
  const gate = join(dir, "gate");
  let gateSet = false;
  const setGate = (word: "open" | "closed") => {
    if (gateSet) return;
    gateSet = true;
    try {
      // Readable by the forwarder, which as root runs as the sandbox's mapped uid (the
      // gate is written after the tree was handed to it).
      writeFileSync(`${gate}.tmp`, word, { mode: 0o644 });
      renameSync(`${gate}.tmp`, gate);
    } catch {
      // an unwritten gate never opens: the forwarder times out and exits without the agent
    }
  };
  const config = {
    gate,
    listen: [
      { host: "127.0.0.1", port: proxyPort, socket: proxy.proxySocket },
      ...proxy.relays.flatMap((r) => [
        { host: "127.0.0.1", port: r.port, socket: r.socket },
        { host: "::1", port: r.port, socket: r.socket, optional: true },
      ]),
    ],
    env: Object.fromEntries(PROXY_VARS.map((v) => [v, proxyUrl])),
    unset: UNSET_VARS,
  };
  const script = join(dir, "forwarder.mjs");
  const configPath = join(dir, "forwarder.json");
  try {
    writeFileSync(script, FORWARDER_SOURCE, { mode: 0o600 });
    writeFileSync(configPath, JSON.stringify(config), { mode: 0o600 });
  } catch (error) {
    setGate("closed");
    await proxy.close();
    throw new EgressError(
      "egress_unavailable",
      `Cannot write the egress forwarder: ${String(error)}`,
    );
  }
  const ready = proxy.ready.then((
    failed,
  ) => (setGate(failed === null ? "open" : "closed"), failed));
  return {
    proxy,
    ready,
    confine(profile: BwrapSandbox): BwrapSandbox {
      const shown = withPrograms(profile, [runtime[0]!]);
      // vouch's own runtime may live under HOME (`~/.deno`, an npx cache), where the agent's
      // per-run HOME copy is mounted over the root's view of it: bind the file itself again.
      return {
        ...shown,
        readOnly: [...new Set([...shown.readOnly, realpathSync(runtime[0]!)])],
        shareNetwork: false,
        launcher: [...runtime, script, configPath],
      };
    },
    close: () => (setGate("closed"), proxy.close()),
  };
}

/**
 * The words for one refusal (screen, summary, `--json`):
 * `refused network: CONNECT evil.example:443 (not a model host of this run)`.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { refusalWords } from "./agent_egress.ts";
 * equal(refusalWords({ host: "evil.example", port: 443, method: "CONNECT" }),
 *   "refused network: CONNECT evil.example:443 (not a model host of this run)");
 * ```
 */
export function refusalWords(r: EgressRefusal): string {
  return `refused network: ${r.method} ${r.host}:${r.port} (not a model host of this run)`;
}
