import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runProcess } from "../process/run.ts";
import { bwrapProfile } from "../sandbox/bwrap.ts";
import { NO_SANDBOX, SandboxError, type SandboxProfile } from "../sandbox/profile.ts";

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
 * Probes the sandboxes by actually running `true` inside each, with the same
 * flags checks get (bwrap can be installed yet fail inside containers).
 *
 * @example
 * ```ts ignore
 * import { probeSandbox } from "./sandbox_probe.ts";
 * const p = await probeSandbox();
 * console.log(p.bwrap.available ? "bwrap ok" : `bwrap: ${p.bwrap.reason}`);
 * ```
 */
export async function probeSandbox(options: { bwrapPath?: string } = {}): Promise<SandboxProbe> {
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
    const version = await runProcess({
      argv: [profile.bwrapPath, "--version"],
      cwd: dir,
      timeoutMs: 5000,
    });
    const versionLine = version.exitCode === 0 ? version.stdout.head.trim() : null;
    const run = await runProcess({ argv: ["true"], cwd: dir, sandbox: profile, timeoutMs: 10_000 });
    if (run.exitCode === 0) {
      return {
        bwrap: { available: true, path: profile.bwrapPath, version: versionLine, reason: null },
        none,
      };
    }
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

/** What a policy demands of the sandbox. */
export type SandboxRequirement = "bwrap" | "none" | "auto";

/**
 * Picks the sandbox for `worktree` under a requirement: `bwrap` refuses
 * (throws `sandbox_unavailable`) rather than downgrading; `auto` uses bwrap
 * when the probe passes and otherwise the explicit `none` (recorded in every
 * result); `none` is `none`.
 *
 * @example
 * ```ts ignore
 * import { selectSandbox } from "./sandbox_probe.ts";
 * const profile = await selectSandbox("bwrap", { worktree: "/tmp/wt" });
 * ```
 */
export async function selectSandbox(
  requirement: SandboxRequirement,
  options: { worktree: string; keyStoreDir?: string; probe?: SandboxProbe },
): Promise<SandboxProfile> {
  if (requirement === "none") return NO_SANDBOX;
  const probe = options.probe ?? await probeSandbox();
  if (!probe.bwrap.available) {
    if (requirement === "auto") return NO_SANDBOX;
    throw new SandboxError(
      "sandbox_unavailable",
      `Cannot sandbox: policy requires bwrap but it is unavailable: ${probe.bwrap.reason}`,
    );
  }
  return bwrapProfile({
    worktree: options.worktree,
    ...(probe.bwrap.path !== null ? { bwrapPath: probe.bwrap.path } : {}),
    ...(options.keyStoreDir !== undefined ? { keyStoreDir: options.keyStoreDir } : {}),
  });
}
