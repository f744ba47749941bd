/**
 * What the verify benches share: a quiet shell step (their bare peer) and a
 * `verifyPatchInRepo` call that must verify. Not part of the library.
 *
 * @module
 */
import { verifyPatchInRepo, type VerifyPatchOptions } from "../adapters/driver/verify_patch.ts";

/** Runs `command` under `sh -c` in `cwd` with no output; throws when it fails. */
export async function sh(cwd: string, command: string): Promise<void> {
  const out = await new Deno.Command("sh", {
    args: ["-c", command],
    cwd,
    stdout: "null",
    stderr: "null",
  })
    .output();
  if (!out.success) throw new Error(`bench command failed: ${command}`);
}

/**
 * Verifies `opts.patch` in `opts.dir` with the key and worktrees under
 * `state`; throws unless the verdict is `verified`.
 */
export async function mustVerify(
  state: string,
  opts: Omit<VerifyPatchOptions, "keyEnv" | "worktreeRoot">,
): Promise<void> {
  const r = await verifyPatchInRepo({
    ...opts,
    keyEnv: { VOUCH_KEY_FILE: `${state}/key` },
    worktreeRoot: `${state}/worktrees`,
  });
  if (r.verdict !== "verified") throw new Error(`not verified: ${r.reasons.join(", ")}`);
}
