/**
 * What a sandbox whose user is mapped (vouch as root, see
 * `adapters/sandbox/_user_map.ts`) needs around its launcher (`_launcher.ts`,
 * which writes the user namespace's maps while bwrap waits): the FIFO pairs
 * it talks to bwrap through, in a private 0700 directory of this process
 * (made ahead in batches and used again child after child:
 * {@linkcode releaseFifos}; the directory goes at exit, or with the reaper
 * when vouch is SIGKILLed),
 * and the hand-over of the writable trees to the mapped uid before the child
 * starts. A sandbox with no map at all could not start its command (`setpriv`
 * cannot become an unmapped uid).
 *
 * @module
 */
import { spawn } from "node:child_process";
import { lstatSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import type { UserMap } from "../sandbox/_user_map.ts";
import { afterShellRun } from "./_after_shell.ts";
import { permissionDenied, requireRun } from "./permission.ts";
import { handOverTree } from "./_tree_walk.ts";

const SH = "/bin/sh";

let fifoDir: string | null = null;

function fifos(): string {
  if (fifoDir === null) {
    fifoDir = mkdtempSync(join(tmpdir(), "vouch-userns-"));
    const dir = fifoDir;
    const remove = () => rmSync(dir, { recursive: true, force: true });
    // Node's exit (process.exit too), and Deno's unload (Deno.exit too).
    process.on("exit", remove);
    (globalThis as { addEventListener?: (t: string, f: () => void) => void }).addEventListener?.(
      "unload",
      remove,
    );
    // A SIGKILLed vouch runs neither: its reaper removes the dir.
    startReaper(dir);
  }
  return join(fifoDir, crypto.randomUUID());
}

// $1 the dir. stdin is a pipe from vouch that is never written: it ends when vouch does, however.
const REAP = 'while read -r _; do :; done; rm -rf -- "$1"';

/** The reaper's stdin, held open while this process lives (dropped, the reaper would reap). */
const reaperStdin: unknown[] = [];

type ReaperCommand = new (program: string, options: Record<string, unknown>) => {
  spawn(): { stdin: WritableStream<Uint8Array>; unref(): void };
};

/**
 * A shell in its own session that removes `dir` once this process is gone (its stdin, a pipe
 * only this process holds, reaches end of file): the FIFO dir of a vouch killed by SIGKILL
 * stays behind no longer. Never keeps this process alive; not started where Deno's flags refuse
 * the shell (the exit handlers still remove the dir).
 */
function startReaper(dir: string): void {
  const options = { env: { PATH: "/usr/bin:/bin" }, detached: true };
  const args = ["-c", REAP, "vouch-userns-reaper", dir];
  const Command = (globalThis as { Deno?: { Command?: ReaperCommand } }).Deno?.Command;
  try {
    if (Command !== undefined) {
      const child = new Command(SH, {
        ...options,
        args,
        clearEnv: true,
        stdin: "piped",
        stdout: "null",
        stderr: "null",
      }).spawn();
      child.unref();
      reaperStdin.push(child.stdin.getWriter());
      return;
    }
    const child = spawn(SH, args, { ...options, stdio: ["pipe", "ignore", "ignore"] });
    child.on("error", () => {});
    child.stdin?.on("error", () => {});
    child.unref();
    (child.stdin as { unref?(): void } | null)?.unref?.();
    reaperStdin.push(child.stdin);
  } catch {
    // refused or failed: the exit handlers are all there is
  }
}

/** FIFO pairs made ahead, each used by one launch (removed after its child). */
const madeFifos: string[] = [];
const FIFO_BATCH = 8;
// The FIFO paths. One exec for the batch.
const MAKE_FIFOS = `mkfifo -m 600 "$@" 2>/dev/null && echo made
true`;

/**
 * The FIFO prefix of the next mapped launch, its pair made ahead: a batch of
 * {@linkcode FIFO_BATCH} pairs at a time by one `mkfifo` in a long-lived shell of this process,
 * so a check's launcher makes none (one process start less per check). When no shell answers,
 * a fresh prefix: its launcher makes the pair itself.
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { existsSync } from "node:fs";
 * import { fifoPrefix, removeFifos } from "./_user_launch.ts";
 * const prefix = await fifoPrefix();
 * ok(prefix.includes("vouch-userns-"));
 * removeFifos(prefix);
 * ok(!existsSync(prefix + ".i"));
 * ```
 */
export async function fifoPrefix(): Promise<string> {
  const made = madeFifos.pop();
  if (made !== undefined) return made;
  const batch = Array.from({ length: FIFO_BATCH }, () => fifos());
  try {
    requireRun(SH, "making the user map's FIFOs");
    const answer = await afterShellRun(SH, MAKE_FIFOS, batch.flatMap((p) => [`${p}.i`, `${p}.b`]));
    // Some made, some not: each launcher makes what is missing of its own pair.
    if (answer !== null && !answer.cutShort && /^made$/m.test(answer.out)) madeFifos.push(...batch);
  } catch {
    // the launcher makes its own
  }
  return madeFifos.pop() ?? fifos();
}

/**
 * Removes the FIFO pair of `prefix` (from {@linkcode fifoPrefix}).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { existsSync } from "node:fs";
 * import { fifoPrefix, removeFifos } from "./_user_launch.ts";
 * const prefix = await fifoPrefix(); // its pair is usually made ahead
 * removeFifos(prefix);
 * equal(existsSync(prefix + ".i") || existsSync(prefix + ".b"), false);
 * ```
 */
export function removeFifos(prefix: string): void {
  for (const end of [".i", ".b"]) rmSync(prefix + end, { force: true });
}

/**
 * Gives the FIFO pair of `prefix` back once its child exited, for the next
 * launch (a pair made and removed per child cost a share of a batch
 * `mkfifo` and two unlinks: about 1 ms of a check's CPU). Sound because
 * nothing holds the pair then: bwrap went on only after every writer of its
 * wait FIFO, the mapper, closed it, and a mapper left waiting by a launcher
 * that never exec'd bwrap would only write the next sandbox the same map.
 * A pair that is not two FIFOs any more is removed instead.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { fifoPrefix, releaseFifos } from "./_user_launch.ts";
 * const prefix = await fifoPrefix();
 * releaseFifos(prefix);
 * equal(await fifoPrefix(), prefix);
 * ```
 */
export function releaseFifos(prefix: string): void {
  try {
    if (lstatSync(`${prefix}.i`).isFIFO() && lstatSync(`${prefix}.b`).isFIFO()) {
      madeFifos.push(prefix);
      return;
    }
  } catch {
    // missing: remove what is left
  }
  removeFifos(prefix);
}

// Every file of the tree not yet owned by the mapped uid (vouch's own git and writes make root's).
const HAND_OVER = `u=$1; shift
for t in "$@"; do
  find "$t" -xdev \\( ! -uid "$u" -o ! -gid "$u" \\) -exec chown -h "$u:$u" {} + || echo "failed $t"
done
true`;

/**
 * Hands the writable `trees` to the mapped uid (every entry not yet owned by
 * it: vouch's own git and writes make root's), before the child's write
 * budget starts (a changed owner changes ctime): a walk of this process
 * (`_tree_walk.ts`, no process start) for a small tree, a `find ... -exec
 * chown` in the long-lived shell of this process for one past the walk's
 * bound. Throws when a tree could not be handed over: the child could not
 * write its own tree (Deno refusing the walk or the shell throws its own
 * permission error).
 *
 * @example
 * ```ts
 * import { rejects } from "node:assert/strict";
 * import { handOverTrees } from "./_user_launch.ts";
 * await handOverTrees([], { uid: 65534, setpriv: "/usr/bin/setpriv" }); // nothing to hand over
 * // A tree that is not there cannot be handed over: the child could not write it.
 * await rejects(
 *   handOverTrees(["/nonexistent/vouch-tree"], { uid: 65534, setpriv: "/usr/bin/setpriv" }),
 *   /Cannot hand the sandbox's tree to uid 65534/,
 * );
 * ```
 */
export async function handOverTrees(trees: readonly string[], map: UserMap): Promise<void> {
  const large: string[] = [];
  for (const tree of trees) {
    try {
      if (handOverTree(tree, map.uid) === null) large.push(tree);
    } catch (error) {
      // Deno refusing the walk is a permission error naming the flag (see _launch.ts).
      if (permissionDenied(error) !== null) throw error;
      throw new Error(
        `Cannot hand the sandbox's tree to uid ${map.uid}: failed ${tree}: ${
          error instanceof Error ? error.message : String(error)
        }`,
        { cause: error },
      );
    }
  }
  if (large.length === 0) return;
  // Refused by Deno's flags, the shell would read as "no shell answered".
  requireRun(SH, "the hand-over of the sandbox's tree to its mapped uid");
  const answer = await afterShellRun(SH, HAND_OVER, [String(map.uid), ...large]);
  if (answer === null || answer.cutShort || /^failed /m.test(answer.out)) {
    throw new Error(
      `Cannot hand the sandbox's tree to uid ${map.uid}: ${
        answer?.out.trim() || "no shell answered"
      }`,
    );
  }
}
