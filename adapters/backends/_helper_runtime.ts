/**
 * How vouch runs its small helper programs (the file helper, the terminal
 * exit wrapper): an ES module evaluated by a `deno` or `node` runtime, inside
 * the agent's sandbox with the network cut and an empty private HOME.
 *
 * @module
 */
import { basename } from "node:path";
import process from "node:process";
import { BWRAP_HOME, findOnPath } from "../sandbox/bwrap.ts";
import type { SandboxProfile } from "../sandbox/profile.ts";

/**
 * The argv that runs the ES module `source` with `runtime` (Deno:
 * `deno eval`; Node: `node -e`), `args` after `--` (the module reads its
 * last ones from `process.argv`), or null when the runtime is neither.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { evalArgv } from "./_helper_runtime.ts";
 * equal(evalArgv("/usr/bin/node", "1")?.[1], "--input-type=module");
 * equal(evalArgv("/usr/bin/python3", "1"), null);
 * ```
 */
export function evalArgv(
  runtime: string,
  source: string,
  args: readonly string[] = [],
): string[] | null {
  const name = basename(runtime);
  const tail = args.length > 0 ? ["--", ...args] : [];
  if (/^deno(\.exe)?$/.test(name)) {
    return [runtime, "eval", "--quiet", "--no-config", "--no-lock", "--ext=js", source, ...tail];
  }
  if (/^node(js)?(\d+)?(\.exe)?$/.test(name)) {
    return [runtime, "--input-type=module", "-e", source, ...tail];
  }
  return null;
}

/**
 * The runtime vouch's helpers run on: vouch's own (`process.execPath`) when
 * it is deno or node, else (a compiled vouch) a `deno` or `node` on PATH,
 * which the sandbox mounts like any toolchain; null when there is none.
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { helperRuntime } from "./_helper_runtime.ts";
 * ok(helperRuntime() !== null);
 * ```
 */
export function helperRuntime(): string | null {
  if (evalArgv(process.execPath, "") !== null) return process.execPath;
  return findOnPath("deno") ?? findOnPath("node");
}

/**
 * The helper's confinement: the agent's sandbox with the network cut and an
 * empty private HOME (it needs neither the agent's state copy nor anything
 * else of it).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { helperSandbox } from "./_helper_runtime.ts";
 * const p = helperSandbox({ kind: "bwrap", bwrapPath: "/usr/bin/bwrap", writable: ["/wt"],
 *   readOnly: [], hiddenDirs: [], hiddenFiles: [], shareNetwork: true, homeSource: "/s/home" });
 * equal(p.kind === "bwrap" && p.shareNetwork, false);
 * equal(p.kind === "bwrap" && p.homeSource, undefined);
 * ```
 */
export function helperSandbox(sandbox: SandboxProfile): SandboxProfile {
  if (sandbox.kind !== "bwrap") return sandbox;
  const { homeSource: _state, launcher: _egress, ...rest } = sandbox;
  return { ...rest, home: BWRAP_HOME, shareNetwork: false };
}
