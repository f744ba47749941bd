/**
 * The cleared, allowlisted environment a child process gets.
 *
 * @module
 */
import process from "node:process";
import { envDenyReason, sanitizePath } from "./env.ts";
import { type ProcessSpec, ProcessSpecError } from "./types.ts";

function hostEnv(name: string): string | undefined {
  try {
    return process.env[name];
  } catch {
    return undefined;
  }
}

/**
 * The environment a child gets: PATH (absolute entries only), LANG, TERM, a
 * private HOME and TMPDIR, npm's (and the `update-notifier` package's) update
 * check off, plus the caller's extras after the deny rules.
 *
 * The update check is off because every child's HOME is new: npm, finding no
 * record of its last check there, asks the registry at every start (a check
 * has no network; under bwrap the lookup fails only after seconds). Measured
 * on `npm test` with a fresh HOME, no network: 4.7 s wall and 0.90 s CPU
 * with the check, 1.7 s and 0.40 s without (a user's own HOME checks once a day).
 */
export function childEnv(
  spec: Pick<ProcessSpec, "env" | "allowSecretEnv" | "vouchEnv">,
  home: string,
  tmpdir: string,
): Record<string, string> {
  const env: Record<string, string> = {
    PATH: sanitizePath(hostEnv("PATH")),
    LANG: hostEnv("LANG") ?? "C.UTF-8",
    TERM: hostEnv("TERM") ?? "dumb",
    HOME: home,
    TMPDIR: tmpdir,
    npm_config_update_notifier: "false",
    NO_UPDATE_NOTIFIER: "1",
  };
  for (const [name, value] of Object.entries(spec.env ?? {})) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw new ProcessSpecError(
        "env_denied",
        `Cannot pass environment: invalid name ${JSON.stringify(name)}`,
      );
    }
    const reason = envDenyReason(name);
    if (
      reason === "injection" || (reason === "secret" && !(spec.allowSecretEnv ?? []).includes(name))
    ) {
      throw new ProcessSpecError(
        "env_denied",
        `Cannot pass environment: ${name} looks like ${
          reason === "secret" ? "a secret" : "code injection"
        }`,
      );
    }
    env[name] = name === "PATH" ? sanitizePath(value) : value;
  }
  for (const [name, value] of Object.entries(spec.vouchEnv ?? {})) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || name === "PATH") {
      throw new ProcessSpecError(
        "env_denied",
        `Cannot pass environment: invalid name ${JSON.stringify(name)}`,
      );
    }
    env[name] = value;
  }
  return env;
}
