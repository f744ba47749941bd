/**
 * Shared pieces of the confinement red-team tests: a real repository with a
 * real linked worktree, the real bwrap probe, and helpers that run an attack
 * as a `command:` agent (through `confinedBackend`, as `vouch run` does) or as
 * a check (through the clean verifier's sandbox profile).
 */
import { join } from "node:path";
import { createRepo, type FixtureRepo } from "../../golden/fixture_repos.ts";
import { probeSandbox } from "../../../adapters/host/sandbox_probe.ts";
import { commandBackend } from "../../../adapters/backends/command_backend.ts";
import { confinedBackend } from "../../../adapters/driver/confined_backend.ts";
import type { BackendResult } from "../../../adapters/backends/types.ts";
import type { SandboxRequirement } from "../../../adapters/host/sandbox_probe.ts";
import type { SandboxLimits } from "../../../adapters/sandbox/limits.ts";
import { createWorktree, removeWorktree, type Worktree } from "../../../adapters/worktree/mod.ts";

export const probe = await probeSandbox();
/** Why bwrap tests are skipped here (printed), or null. */
export const skipReason = probe.bwrap.available ? null : `bwrap unavailable: ${probe.bwrap.reason}`;
if (skipReason !== null) console.log(`SKIP confinement red-team (bwrap): ${skipReason}`);

/** A repo with one commit and a linked worktree of it, as `vouch run` makes them. */
export interface Arena {
  readonly repo: FixtureRepo;
  readonly wt: Worktree;
  readonly scratch: string;
  /** The agent program's own dir (0755, bound read-only for it). */
  readonly bin: string;
  cleanup(): Promise<void>;
}

export async function arena(files: Record<string, string> = { "a.txt": "a\n" }): Promise<Arena> {
  const repo = await createRepo(files, "true");
  const scratch = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-rt-" }));
  // The agent's program's own dir, bound read-only: others may read it, as an install dir (as
  // root the agent is host uid 65534, and a 0700 dir of root's stays closed to it). Not the whole
  // scratch: the worktree's own 0700 parents are in it.
  const bin = join(scratch, "bin");
  await Deno.mkdir(bin, { mode: 0o755 });
  await Deno.chmod(bin, 0o755);
  const wt = await createWorktree({
    repo: repo.dir,
    taskId: "rt",
    attempt: 1,
    root: join(scratch, "worktrees"),
  });
  return {
    repo,
    wt,
    scratch,
    bin,
    async cleanup() {
      await removeWorktree(wt).catch(() => {});
      await repo.cleanup();
      await Deno.remove(scratch, { recursive: true }).catch(() => {});
    },
  };
}

/** Runs `script` (a shell script) as a `command:` agent in `wt`, confined as `vouch run` does. */
export async function runAgentScript(
  a: Arena,
  script: string,
  requirement: SandboxRequirement = "auto",
  options: { home?: string; maxSeconds?: number; limits?: Partial<SandboxLimits> } = {},
): Promise<BackendResult> {
  const program = join(a.bin, "agent.sh");
  await Deno.writeTextFile(
    program,
    `#!/bin/sh\n${script}\necho '{"summary":"done","done":true}'\n`,
  );
  await Deno.chmod(program, 0o755);
  const backend = confinedBackend(
    (sandbox) => commandBackend({ argv: [program], sandbox }),
    requirement,
    {
      readOnly: [a.bin],
      probe,
      ...(options.home !== undefined ? { home: options.home } : {}),
      ...(options.limits !== undefined ? { limits: options.limits } : {}),
    },
  );
  return await backend.run({
    taskId: "rt",
    attempt: 1,
    goal: "attack",
    worktree: a.wt.path,
    allowedRoots: [],
    forbiddenPaths: [],
    maxSeconds: options.maxSeconds ?? 30,
    maxOutputMb: 4,
  }, { signal: new AbortController().signal, emit: () => {} });
}

/** Whether a path exists (lstat). */
export async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

/** Whether any live process has `marker` in its command line. */
export function processWithMarker(marker: string): boolean {
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const cmd = Deno.readTextFileSync(`/proc/${e.name}/cmdline`);
      const stat = Deno.readTextFileSync(`/proc/${e.name}/stat`);
      if (cmd.includes(marker) && !/\) [ZX] /.test(stat)) return true;
    } catch {
      // gone
    }
  }
  return false;
}

/** Sleeps. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
