/**
 * Why an environment variable name may never reach a child process:
 * `secret` (looks like a credential) or `injection` (changes what code runs).
 */
export type EnvDenyReason = "secret" | "injection";

/** `GIT_*` variables vouch sets itself; every other `GIT_*` name is refused. */
export const VOUCH_GIT_ENV: readonly string[] = [
  "GIT_CONFIG_NOSYSTEM",
  "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_COUNT",
  "GIT_TERMINAL_PROMPT",
  "GIT_OPTIONAL_LOCKS",
  "GIT_INDEX_FILE",
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_AUTHOR_NAME",
  "GIT_AUTHOR_EMAIL",
  "GIT_AUTHOR_DATE",
  "GIT_COMMITTER_NAME",
  "GIT_COMMITTER_EMAIL",
  "GIT_COMMITTER_DATE",
  "GIT_NO_REPLACE_OBJECTS",
  "GIT_ATTR_NOSYSTEM",
];

const SECRET_PARTS = ["TOKEN", "SECRET", "KEY", "PASS", "CREDENTIAL", "AUTH", "COOKIE", "SESSION"];
const SECRET_PREFIXES = ["AWS_", "GITHUB_", "GH_", "NPM_", "AZURE_", "GOOGLE_", "GCP_", "DOCKER_"];
const SECRET_NAMES = ["SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO", "KRB5CCNAME", "NETRC"];
const INJECTION_PREFIXES = [
  "LD_",
  "DYLD_",
  "GIT_",
  "PYTHON",
  "PERL5",
  "RUBY",
  "JAVA_TOOL",
  "_JAVA",
  // bash imports functions from `BASH_FUNC_<name>%%` (the sandbox's fd closer is bash).
  "BASH_FUNC_",
];
const INJECTION_NAMES = [
  "NODE_OPTIONS",
  "NODE_PATH",
  "BASH_ENV",
  "ENV",
  "SHELLOPTS",
  "BASHOPTS",
  "PS4",
  "PROMPT_COMMAND",
  "IFS",
  "CDPATH",
  "GLOBIGNORE",
  "DENO_DIR",
  "DENO_AUTH_TOKENS",
  "RUSTC_WRAPPER",
  "RUSTFLAGS",
  "CARGO_BUILD_RUSTC_WRAPPER",
  "GOFLAGS",
  "PERLLIB",
  "RUBYLIB",
  "RUBYOPT",
  "JDK_JAVA_OPTIONS",
  "EDITOR",
  "VISUAL",
  "PAGER",
];

/**
 * Returns why `name` must never be passed to a child, or `null` when it may.
 * Matching is case-insensitive.
 *
 * @example
 * ```ts
 * import { envDenyReason } from "./env.ts";
 * if (envDenyReason("GITHUB_TOKEN") !== "secret") throw new Error();
 * if (envDenyReason("LD_PRELOAD") !== "injection") throw new Error();
 * if (envDenyReason("GIT_CONFIG_NOSYSTEM") !== null) throw new Error();
 * if (envDenyReason("LANG") !== null) throw new Error();
 * ```
 */
export function envDenyReason(name: string): EnvDenyReason | null {
  const upper = name.toUpperCase();
  if (VOUCH_GIT_ENV.includes(upper)) return null;
  if (INJECTION_NAMES.includes(upper)) return "injection";
  if (INJECTION_PREFIXES.some((p) => upper.startsWith(p))) return "injection";
  if (SECRET_NAMES.includes(upper)) return "secret";
  if (SECRET_PREFIXES.some((p) => upper.startsWith(p))) return "secret";
  if (SECRET_PARTS.some((p) => upper.includes(p))) return "secret";
  return null;
}

/** A safe `PATH` used when the host's is missing: absolute system directories only. */
export const FALLBACK_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/**
 * Keeps only absolute, non-empty entries of a `PATH` (a relative or empty entry
 * would let the working directory, i.e. the patch, shadow a program).
 *
 * @example
 * ```ts
 * import { sanitizePath } from "./env.ts";
 * if (sanitizePath("/usr/bin::./bin:/bin") !== "/usr/bin:/bin") throw new Error();
 * ```
 */
export function sanitizePath(path: string | undefined): string {
  const parts = (path ?? "").split(":").filter((p) => p.startsWith("/"));
  return parts.length === 0 ? FALLBACK_PATH : parts.join(":");
}
