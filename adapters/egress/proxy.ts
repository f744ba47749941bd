/**
 * The filtering proxy vouch runs for an agent, outside the agent's network
 * namespace, on unix sockets the namespace reaches through a bind mount (the
 * design of `@anthropic-ai/sandbox-runtime`): an HTTP proxy (`CONNECT
 * host:port` for TLS, absolute-form requests for plain HTTP) that forwards
 * only to allowlisted hosts and answers everything else `403` and records it,
 * and one plain relay socket per allowlisted loopback port (a model server on
 * 127.0.0.1 reached directly, without the proxy). It runs as a helper process
 * (vouch itself keeps `--deny-net`), confined like every child: its own bwrap
 * with the host network and only its socket directory visible.
 *
 * @module
 */
import type { Writable } from "node:stream";
import { writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { runProcess } from "../process/run.ts";
import type { SandboxProfile } from "../sandbox/profile.ts";
import { LineSplitter } from "../backends/line_splitter.ts";
import { EgressError, type EgressHost, isLoopbackHost } from "./allowlist.ts";
import { PROXY_SOURCE } from "./_proxy_source.ts";

/** One connection the proxy refused. */
export interface EgressRefusal {
  /** The host the agent asked for. */
  readonly host: string;
  /** Its port. */
  readonly port: number;
  /** `CONNECT` (TLS tunnel) or the HTTP method of a plain request. */
  readonly method: string;
}

/** One connection the proxy forwarded. */
export interface EgressForward {
  /** Destination host. */
  readonly host: string;
  /** Destination port. */
  readonly port: number;
  /** `CONNECT`, an HTTP method, or `relay` (a loopback port reached directly). */
  readonly method: string;
}

/** Options of {@linkcode startEgressProxy}. */
export interface EgressProxyOptions {
  /** A private directory for the sockets (short path: unix socket paths hold ~107 bytes). */
  readonly dir: string;
  /** What may be reached. */
  readonly allow: readonly EgressHost[];
  /** Called for every refusal, as it happens. */
  readonly onRefused?: (refusal: EgressRefusal) => void;
  /** The helper's confinement (bwrap: host network, only `dir` visible and writable). */
  readonly sandbox: SandboxProfile;
  /** The runtime argv prefix that runs an ES module source (`deno eval ...`, `node -e`). */
  readonly evalPrefix: readonly string[];
}

/** A running proxy. */
export interface EgressProxy {
  /** The HTTP proxy's unix socket. */
  readonly proxySocket: string;
  /** One relay socket per allowlisted loopback port. */
  readonly relays: readonly { readonly port: number; readonly socket: string }[];
  /**
   * Refusals since the last call (and forgets them), after the helper has
   * confirmed that every refusal it answered so far was reported.
   */
  takeRefusals(): Promise<EgressRefusal[]>;
  /** Every forwarded connection so far. */
  readonly forwarded: readonly EgressForward[];
  /** Stops listening, ends open connections, removes the sockets. */
  close(): Promise<void>;
}

/** A proxy being started: `ready` settles with `null` once it listens, or why it cannot. */
export interface StartingEgressProxy extends EgressProxy {
  /** `null` when every socket listens; the `egress_unavailable` error when the helper failed. */
  readonly ready: Promise<EgressError | null>;
}

const MAX_RECORDS = 1000;

/** A connection the helper refused or forwarded. */
const Passage = z.lazy(() =>
  z.object({
    host: z.string().max(253),
    port: z.number().int().min(1).max(65535),
    method: z.string().max(16),
  }).strict()
);

const Report = z.lazy(() =>
  z.union([
    z.object({ ready: z.literal(true) }).strict(),
    z.object({ synced: z.number().int().nonnegative() }).strict(),
    z.object({ refused: Passage }).strict(),
    z.object({ forwarded: Passage }).strict(),
  ])
);

/**
 * The helper's profile: the agent's allowlisted root, the host network, and
 * of the filesystem only `dir` (its sockets, its config).
 *
 * @example
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
 * import { proxySandbox } from "./proxy.ts";
 * const p = proxySandbox({ kind: "bwrap", bwrapPath: "/usr/bin/bwrap", writable: ["/wt"], readOnly: ["/wt/.git"],
 *   hiddenDirs: [], hiddenFiles: [], homeSource: "/s/home" }, "/s/egress");
 * equal(p.kind === "bwrap" && p.shareNetwork, true);
 * deepEqual(p.kind === "bwrap" && p.writable, ["/s/egress"]);
 * ```
 */
export function proxySandbox(agent: SandboxProfile, dir: string): SandboxProfile {
  if (agent.kind !== "bwrap") return agent;
  const { homeSource: _h, launcher: _l, views: _v, tmpfs: _t, declaredReadOnly: _d, ...rest } =
    agent;
  return { ...rest, writable: [dir], readOnly: [], shareNetwork: true };
}

/**
 * Starts the proxy helper and waits for it to listen; fails closed with
 * `egress_unavailable` when it cannot start or exits first.
 *
 * @example
 * ```ts ignore
 * const proxy = await startEgressProxy({ dir, allow, sandbox, evalPrefix: ["node", "--input-type=module", "-e"] });
 * ```
 */
export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  const proxy = launchEgressProxy(options);
  const failed = await proxy.ready;
  if (failed !== null) throw failed;
  return proxy;
}

/**
 * Starts the proxy helper without waiting for it: `ready` says when it
 * listens (or why it cannot), so whoever starts the agent meanwhile gates it
 * on `ready` (fail closed: no agent traffic before the proxy listens).
 * Throws `egress_unavailable` only when the config cannot be written.
 *
 * @example
 * ```ts ignore
 * const proxy = launchEgressProxy({ dir, allow, sandbox, evalPrefix });
 * if ((await proxy.ready) !== null) await proxy.close();
 * ```
 */
export function launchEgressProxy(options: EgressProxyOptions): StartingEgressProxy {
  const refusals: EgressRefusal[] = [];
  const forwarded: EgressForward[] = [];
  const relayPorts = [
    ...new Set(options.allow.filter((a) => isLoopbackHost(a.host)).map((a) => a.port)),
  ];
  const configPath = join(options.dir, "proxy.json");
  try {
    writeFileSync(
      configPath,
      JSON.stringify({ dir: options.dir, allow: options.allow, relays: relayPorts }),
      { mode: 0o600 },
    );
  } catch (error) {
    throw new EgressError("egress_unavailable", `Cannot write the egress proxy config: ${error}`);
  }
  const kill = new AbortController();
  const syncs = new Map<number, () => void>();
  let nextSync = 0;
  let stdin: Writable | null = null;
  let markReady!: (ok: boolean) => void;
  const ready = new Promise<boolean>((resolve) => (markReady = resolve));
  const lines = new LineSplitter(4096);
  let broken: string | null = null;
  const take = (text: string, tooLong: boolean) => {
    if (text.trim() === "") return;
    let report: z.infer<typeof Report>;
    try {
      if (tooLong) throw new Error("line too long");
      report = Report.parse(JSON.parse(text));
    } catch {
      broken = "the egress proxy sent a malformed report";
      kill.abort();
      return;
    }
    if ("ready" in report) markReady(true);
    else if ("synced" in report) syncs.get(report.synced)?.();
    else if ("refused" in report) {
      if (refusals.length < MAX_RECORDS) refusals.push(report.refused);
      try {
        options.onRefused?.(report.refused);
      } catch {
        // a broken sink never changes the answer
      }
    } else if (forwarded.length < MAX_RECORDS) forwarded.push(report.forwarded);
  };
  const proc = runProcess({
    argv: [...options.evalPrefix, PROXY_SOURCE, "--", configPath],
    cwd: options.dir,
    sandbox: options.sandbox,
    env: { DENO_NO_UPDATE_CHECK: "1", DENO_NO_PACKAGE_JSON: "1", NO_COLOR: "1" },
    signal: kill.signal,
    maxCaptureBytes: 16 * 1024,
    openStdin: (s) => (stdin = s),
    onStdout: (chunk) => {
      for (const l of lines.push(chunk)) take(l.text, l.tooLong);
    },
  });
  const exited = proc.then((r) => {
    markReady(false);
    return r;
  }, (error) => {
    markReady(false);
    return error;
  });
  const settled = ready.then(async (ok): Promise<EgressError | null> => {
    if (ok) return null;
    const r = await exited;
    const why = broken ??
      (typeof r === "object" && r !== null && "stderr" in r
        ? `${(r.spawnError?.message ?? "")}${r.stderr.head.trim().split("\n").at(-1) ?? ""}` ||
          `exited ${r.exitCode}`
        : String(r));
    return new EgressError(
      "egress_unavailable",
      `Cannot start the egress proxy: ${why.slice(0, 300)}; the agent is not started`,
    );
  });
  return {
    ready: settled,
    proxySocket: join(options.dir, "proxy.sock"),
    relays: relayPorts.map((port) => ({ port, socket: join(options.dir, `relay-${port}.sock`) })),
    forwarded,
    async takeRefusals() {
      const s = stdin as Writable | null;
      if (s !== null && !s.destroyed && broken === null) {
        const id = nextSync++;
        let timer: ReturnType<typeof setTimeout> | undefined;
        const synced = new Promise<void>((resolve) => syncs.set(id, resolve));
        s.write(`{"sync":${id}}\n`);
        await Promise.race([
          synced,
          exited,
          // a stuck helper never holds the run: what was read so far is recorded
          new Promise<void>((resolve) => (timer = setTimeout(resolve, 5000))),
        ]);
        clearTimeout(timer);
        syncs.delete(id);
      }
      return refusals.splice(0);
    },
    async close() {
      (stdin as Writable | null)?.end();
      kill.abort();
      await exited;
      await rm(configPath, { force: true }).catch(() => {});
    },
  };
}
