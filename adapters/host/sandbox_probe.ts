import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runProcess } from "../process/run.ts";
import { prlimitPath } from "../process/_kernel_limits.ts";
import { bwrapProfile } from "../sandbox/bwrap.ts";
import { NO_SANDBOX, SandboxError, type SandboxProfile } from "../sandbox/profile.ts";
import type { SandboxLimits } from "../sandbox/limits.ts";
import { forgetProbe, probeKey, rememberedProbe, rememberProbe } from "./_probe_cache.ts";

/** Availability of one sandbox kind, with the reason when it is not usable. */
export interface SandboxAvailability {
  /** Whether a real probe run succeeded. */
  readonly available: boolean;
  /** The executable found, if any. */
  readonly path: string | null;
  /** Its version line, if it ran. */
  readonly version: string | null;
  /** Why it is not available (`null` when available). */
  readonly reason: string | null;
}

/** What this machine can confine children with. */
export interface SandboxProbe {
  /** bubblewrap. */
  readonly bwrap: SandboxAvailability;
  /** The explicit no-sandbox profile (always available). */
  readonly none: SandboxAvailability;
}

/**
 * A bwrap that worked, per executable path: one run probes it once (the CLI's
 * check, the agent's sandbox and the checks' sandbox asked it three times).
 * Only a success is kept: a bwrap that fails later fails its run (closed);
 * one that failed is probed again.
 */
const working = new Map<string, SandboxAvailability>();

/** Options of {@linkcode probeSandbox}. */
export interface ProbeSandboxOptions {
  /** The bwrap to probe (default: found on PATH). */
  readonly bwrapPath?: string;
  /**
   * Probe even when a success is remembered from an earlier run of this boot, and forget it
   * when this probe fails (`vouch doctor`). @default false
   */
  readonly fresh?: boolean;
  /** Where the success is remembered across runs. @default the temp dir */
  readonly rememberIn?: string;
}

/**
 * Probes the sandboxes by actually running `true` inside each, with the same
 * flags checks get (bwrap can be installed yet fail inside containers). A
 * bwrap executable that passed once in this process is not run again, nor
 * one that passed in an earlier run of this user in this boot (the same
 * executable: `_probe_cache.ts`) unless `fresh`.
 *
 * @example
 * ```ts
 * import { equal, match } from "node:assert/strict";
 * import { probeSandbox } from "./sandbox_probe.ts";
 * const p = await probeSandbox();
 * equal(p.none.available, true); // the explicit no-sandbox profile always is
 * equal(p.bwrap.available, p.bwrap.reason === null); // unavailable always says why
 * if (p.bwrap.available) equal((await probeSandbox()).bwrap, p.bwrap); // probed once
 * const missing = await probeSandbox({ bwrapPath: "/nonexistent/bwrap" });
 * equal(missing.bwrap.available, false);
 * match(missing.bwrap.reason!, /nonexistent/);
 * ```
 */
export async function probeSandbox(options: ProbeSandboxOptions = {}): Promise<SandboxProbe> {
  const none: SandboxAvailability = { available: true, path: null, version: null, reason: null };
  let dir: string | null = null;
  try {
    dir = await mkdtemp(join(tmpdir(), "vouch-probe-"));
    let profile;
    try {
      profile = bwrapProfile({
        worktree: dir,
        ...(options.bwrapPath !== undefined ? { bwrapPath: options.bwrapPath } : {}),
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return { bwrap: { available: false, path: null, version: null, reason }, none };
    }
    // Limits are enforced by rlimits set at exec: without prlimit a sandbox would run unbounded.
    if (prlimitPath() === null) {
      const reason = "prlimit (util-linux) not found: the sandbox's limits could not be enforced";
      return { bwrap: { available: false, path: profile.bwrapPath, version: null, reason }, none };
    }
    const known = options.fresh === true ? undefined : working.get(profile.bwrapPath);
    if (known !== undefined) return { bwrap: known, none };
    // Our uid: the owner of the dir just made (Deno's CLI flags refuse getuid).
    const user = (await stat(dir)).uid;
    const key = probeKey(profile.bwrapPath, user);
    const remembered = key === null || options.fresh === true
      ? null
      : rememberedProbe(key, user, options.rememberIn);
    if (remembered !== null && remembered.path === profile.bwrapPath) {
      working.set(profile.bwrapPath, remembered);
      return { bwrap: remembered, none };
    }
    const version = await runProcess({
      argv: [profile.bwrapPath, "--version"],
      cwd: dir,
      timeoutMs: 5000,
    });
    const versionLine = version.exitCode === 0 ? version.stdout.head.trim() : null;
    const run = await runProcess({ argv: ["true"], cwd: dir, sandbox: profile, timeoutMs: 10_000 });
    if (run.exitCode === 0) {
      const bwrap = {
        available: true,
        path: profile.bwrapPath,
        version: versionLine,
        reason: null,
      };
      working.set(profile.bwrapPath, bwrap);
      if (key !== null) rememberProbe(key, user, bwrap.path, versionLine, options.rememberIn);
      return { bwrap, none };
    }
    working.delete(profile.bwrapPath);
    if (options.fresh === true) forgetProbe(user, options.rememberIn);
    const detail = (run.stderr.head + run.stderr.tail).trim() || run.spawnError?.message ||
      `exit ${run.exitCode}`;
    return {
      bwrap: {
        available: false,
        path: profile.bwrapPath,
        version: versionLine,
        reason: `probe run failed: ${detail}`,
      },
      none,
    };
  } finally {
    if (dir !== null) await rm(dir, { recursive: true, force: true }).catch(() => {});
  }
}

/** What a policy demands of the sandbox. `auto` is the default and means bwrap; it never falls back. */
export type SandboxRequirement = "bwrap" | "none" | "auto";

/**
 * What to do when no sandbox works here, said whenever vouch refuses to run
 * unconfined.
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { SANDBOX_INSTALL_HINT } from "./sandbox_probe.ts";
 * ok(SANDBOX_INSTALL_HINT.includes("--sandbox none"));
 * ```
 */
export const SANDBOX_INSTALL_HINT =
  "install bubblewrap (Debian/Ubuntu: sudo apt-get install bubblewrap; Fedora: sudo dnf install " +
  "bubblewrap; Arch: sudo pacman -S bubblewrap) and check with `vouch doctor`, or pass " +
  "--sandbox none to run checks and agents UNSANDBOXED, as you, with vouch's keys in reach";

/** Options of {@linkcode selectSandbox}: what the profile is for and what it may see. */
export interface SelectSandboxOptions {
  /** The tree the child works in (read-write). */
  readonly worktree: string;
  /** The key store (never visible; default: this environment's key directory). */
  readonly keyStoreDir?: string;
  /** Declared read-only paths (`--sandbox-ro`, contract `sandbox.readOnly`). */
  readonly declaredReadOnly?: readonly string[];
  /** Resource limits. */
  readonly limits?: SandboxLimits;
  /** A probe already run (default: run one now). */
  readonly probe?: SandboxProbe;
}

/**
 * Picks the sandbox for `worktree` under a requirement: `bwrap` and `auto`
 * both require a working bwrap and throw `sandbox_unavailable` (exit 5, with
 * {@linkcode SANDBOX_INSTALL_HINT}) rather than downgrading; `none` is `none`
 * (callers warn about it on every run).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { selectSandbox } from "./sandbox_probe.ts";
 * equal((await selectSandbox("none", { worktree: "/tmp" })).kind, "none");
 * ```
 */
export async function selectSandbox(
  requirement: SandboxRequirement,
  options: SelectSandboxOptions,
): Promise<SandboxProfile> {
  if (requirement === "none") {
    return options.limits !== undefined ? { kind: "none", limits: options.limits } : NO_SANDBOX;
  }
  const probe = options.probe ?? await probeSandbox();
  if (!probe.bwrap.available) throw sandboxUnavailable(probe, requirement);
  return bwrapProfile({
    worktree: options.worktree,
    ...(probe.bwrap.path !== null ? { bwrapPath: probe.bwrap.path } : {}),
    ...(options.keyStoreDir !== undefined ? { keyStoreDir: options.keyStoreDir } : {}),
    ...(options.declaredReadOnly !== undefined
      ? { declaredReadOnly: options.declaredReadOnly }
      : {}),
    ...(options.limits !== undefined ? { limits: options.limits } : {}),
  });
}

/**
 * The error vouch stops with when the sandbox a policy requires is not there.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { sandboxUnavailable } from "./sandbox_probe.ts";
 * const e = sandboxUnavailable({ bwrap: { available: false, path: null, version: null, reason: "bwrap not found on PATH" }, none: { available: true, path: null, version: null, reason: null } }, "auto");
 * equal(e.code, "sandbox_unavailable");
 * ```
 */
export function sandboxUnavailable(
  probe: SandboxProbe,
  requirement: SandboxRequirement,
): SandboxError {
  return new SandboxError(
    "sandbox_unavailable",
    `Cannot run: --sandbox ${requirement} needs bubblewrap, which does not work here (${
      probe.bwrap.reason ?? "unknown"
    }); ${SANDBOX_INSTALL_HINT}`,
  );
}
