/**
 * Which hosts an agent may reach: `host[:port]` entries (`*.example.com`
 * for subdomains), parsed and validated, the hosts of the provider base URLs
 * a run is configured with, and the provider defaults when none is.
 *
 * @module
 */
import { isIP } from "node:net";
import { z } from "zod";
import { VouchError } from "../../kernel/errors/mod.ts";

/** Stable codes of {@linkcode EgressError}. */
export type EgressErrorCode = "egress_invalid" | "egress_unavailable";

/**
 * A bad allowlist entry (`egress_invalid`) or a proxy that could not start
 * (`egress_unavailable`: the agent is then not started at all).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { EgressError } from "./allowlist.ts";
 * equal(new EgressError("egress_unavailable", "no proxy").code, "egress_unavailable");
 * ```
 */
export class EgressError extends VouchError<EgressErrorCode> {}

/** One allowed destination. */
export interface EgressHost {
  /** Lower-case host name or IP literal (IPv6 without brackets); `*.x` matches subdomains of x. */
  readonly host: string;
  /** The TCP port. */
  readonly port: number;
}

const HOST_NAME =
  /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** The zod schema of an `--egress-allow` value: `host`, `host:port`, `[v6]:port`, `*.domain`. */
export const EgressEntrySchema = z.lazy(() =>
  z.string().min(1).max(300).refine(
    (s) => parseEntry(s, 443) !== null,
    { message: "expected HOST or HOST:PORT (e.g. api.example.com, 127.0.0.1:8080, *.example.com)" },
  )
);

function parseEntry(raw: string, defaultPort: number): EgressHost | null {
  const s = raw.trim().toLowerCase();
  let host = s;
  let port = defaultPort;
  const v6 = /^\[([0-9a-f:.]+)\](?::([0-9]{1,5}))?$/.exec(s);
  if (v6 !== null) {
    host = v6[1]!;
    if (v6[2] !== undefined) port = Number(v6[2]);
    if (isIP(host) !== 6) return null;
  } else {
    const m = /^([^:]+)(?::([0-9]{1,5}))?$/.exec(s);
    if (m === null) return null;
    host = m[1]!;
    if (m[2] !== undefined) port = Number(m[2]);
    if (isIP(host) === 0 && !HOST_NAME.test(host)) return null;
  }
  if (!Number.isInteger(port) || port < 1 || port > 65535) return null;
  return { host, port };
}

/**
 * Parses one allowlist entry (port 443 unless given).
 *
 * @example
 * ```ts
 * import { deepEqual, throws } from "node:assert/strict";
 * import { parseEgressHost } from "./allowlist.ts";
 * deepEqual(parseEgressHost("API.example.com"), { host: "api.example.com", port: 443 });
 * deepEqual(parseEgressHost("[::1]:8080"), { host: "::1", port: 8080 });
 * throws(() => parseEgressHost("evil.com/path"));
 * ```
 */
export function parseEgressHost(raw: string, defaultPort = 443): EgressHost {
  const checked = EgressEntrySchema.safeParse(raw);
  const parsed = checked.success ? parseEntry(raw, defaultPort) : null;
  if (parsed === null) {
    throw new EgressError(
      "egress_invalid",
      `Cannot allow egress to "${raw.slice(0, 100)}": ${
        checked.success ? "not a host" : checked.error.issues[0]?.message
      }`,
    );
  }
  return parsed;
}

/**
 * The destination of a base URL (`https://h/x` → h:443, `http://h:8080` → h:8080), or null
 * for anything that is not an http(s) URL.
 *
 * @example
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
 * import { hostOfUrl } from "./allowlist.ts";
 * deepEqual(hostOfUrl("http://127.0.0.1:4010/v1"), { host: "127.0.0.1", port: 4010 });
 * deepEqual(hostOfUrl("https://api.anthropic.com"), { host: "api.anthropic.com", port: 443 });
 * equal(hostOfUrl("file:///etc/passwd"), null);
 * ```
 */
export function hostOfUrl(url: string): EgressHost | null {
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    return null;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return null;
  const host = u.hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  if (host === "") return null;
  const port = u.port !== "" ? Number(u.port) : u.protocol === "https:" ? 443 : 80;
  return { host, port };
}

/**
 * Whether `host` names this machine's loopback (`localhost`, 127.0.0.0/8, `::1`).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { isLoopbackHost } from "./allowlist.ts";
 * equal(isLoopbackHost("127.0.0.1") && isLoopbackHost("localhost") && isLoopbackHost("::1"), true);
 * equal(isLoopbackHost("10.0.0.1"), false);
 * ```
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$/.test(h);
}

/**
 * Whether a request for `host:port` is allowed by `allow` (exact host, or
 * `*.d` for the subdomains of d; a loopback entry allows every loopback name
 * on its port).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { egressAllowed } from "./allowlist.ts";
 * const allow = [{ host: "*.example.com", port: 443 }, { host: "127.0.0.1", port: 4010 }];
 * equal(egressAllowed(allow, "api.example.com", 443), true);
 * equal(egressAllowed(allow, "example.com.evil.net", 443), false);
 * equal(egressAllowed(allow, "localhost", 4010), true);
 * equal(egressAllowed(allow, "127.0.0.1", 4011), false);
 * ```
 */
export function egressAllowed(allow: readonly EgressHost[], host: string, port: number): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "");
  return allow.some((a) => {
    if (a.port !== port) return false;
    if (a.host === h) return true;
    if (a.host.startsWith("*.")) return h.endsWith(a.host.slice(1)) && h.length > a.host.length - 1;
    return isLoopbackHost(a.host) && isLoopbackHost(h);
  });
}

/** What each provider's agent reaches by default, and the variables that move it. */
const PROVIDERS: Readonly<Record<string, { vars: readonly string[]; hosts: readonly string[] }>> = {
  claude: { vars: ["ANTHROPIC_BASE_URL"], hosts: ["api.anthropic.com"] },
  codex: { vars: ["OPENAI_BASE_URL"], hosts: ["api.openai.com", "chatgpt.com"] },
  gemini: {
    vars: ["GOOGLE_GEMINI_BASE_URL", "GOOGLE_VERTEX_BASE_URL"],
    hosts: [
      "generativelanguage.googleapis.com",
      "oauth2.googleapis.com",
      "cloudcode-pa.googleapis.com",
    ],
  },
  qwen: {
    vars: ["OPENAI_BASE_URL"],
    hosts: ["dashscope.aliyuncs.com", "dashscope-intl.aliyuncs.com"],
  },
};

/** Options of {@linkcode agentEgressAllowlist}. */
export interface AgentEgressOptions {
  /** `claude`, `codex`, `gemini`, `qwen`, or null for an agent with no known provider. */
  readonly provider: string | null;
  /** The environment forwarded to the agent (values; only `*_BASE_URL` ones are read). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Provider base URLs from the agent's own config (Codex's `model_providers.*.base_url`). */
  readonly configUrls?: readonly string[];
  /** Hosts the user added (`--egress-allow`). */
  readonly extra?: readonly EgressHost[];
}

/**
 * The hosts an agent may reach: every forwarded `*_BASE_URL`'s host, the base
 * URLs of its own config, the user's additions, and the provider's default
 * hosts only when none of its base URL variables nor a config URL is set.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { agentEgressAllowlist } from "./allowlist.ts";
 * deepEqual(agentEgressAllowlist({ provider: "claude", env: { ANTHROPIC_BASE_URL: "http://127.0.0.1:4010" } }),
 *   [{ host: "127.0.0.1", port: 4010 }]);
 * deepEqual(agentEgressAllowlist({ provider: "claude", env: {} }), [{ host: "api.anthropic.com", port: 443 }]);
 * deepEqual(agentEgressAllowlist({ provider: null, env: {} }), []);
 * ```
 */
export function agentEgressAllowlist(options: AgentEgressOptions): EgressHost[] {
  const out: EgressHost[] = [];
  const add = (h: EgressHost | null) => {
    if (h !== null && !out.some((o) => o.host === h.host && o.port === h.port)) out.push(h);
  };
  const provider = options.provider !== null ? PROVIDERS[options.provider] ?? null : null;
  let configured = (options.configUrls ?? []).length > 0;
  for (const [name, value] of Object.entries(options.env)) {
    if (value === undefined || !/_BASE_URL$/.test(name)) continue;
    const h = hostOfUrl(value);
    add(h);
    if (h !== null && provider?.vars.includes(name)) configured = true;
  }
  for (const url of options.configUrls ?? []) add(hostOfUrl(url));
  if (provider !== null && !configured) {
    for (const host of provider.hosts) add({ host, port: 443 });
  }
  for (const h of options.extra ?? []) add(h);
  return out;
}

/**
 * The `base_url = "..."` values of a Codex `config.toml` (its model providers),
 * read line by line; only ever adds hosts the user configured.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { codexConfigUrls } from "./allowlist.ts";
 * deepEqual(codexConfigUrls('[model_providers.x]\nbase_url = "http://127.0.0.1:9/v1"\n'), ["http://127.0.0.1:9/v1"]);
 * ```
 */
export function codexConfigUrls(toml: string): string[] {
  const out: string[] = [];
  for (const line of toml.split("\n")) {
    const m = /^\s*base_url\s*=\s*["']([^"']{1,500})["']\s*(#.*)?$/.exec(line);
    if (m !== null) out.push(m[1]!);
  }
  return out;
}
