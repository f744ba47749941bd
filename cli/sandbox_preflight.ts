/**
 * What `vouch run` and `vouch verify` do about the sandbox before anything
 * runs: a required sandbox (the default `auto`, or `bwrap`) that does not work
 * here stops the command with exit 5 ("could not run") and says how to
 * install bubblewrap or opt out; `--sandbox none` warns, on every run, what it
 * gives up.
 *
 * @module
 */
import type { CliIo } from "./command.ts";
import { probeSandbox, sandboxUnavailable } from "../adapters/host/sandbox_probe.ts";
import type { SandboxProbe, SandboxRequirement } from "../adapters/host/sandbox_probe.ts";
import { UNSANDBOXED_WARNING } from "../adapters/sandbox/profile.ts";

/**
 * Checks the sandbox a command requires: returns to go on (after the `none`
 * warning); throws `sandbox_unavailable` (a VouchError: `vouch` prints it and
 * exits 5, could not run) when a required sandbox does not work here.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { preflightSandbox } from "./sandbox_preflight.ts";
 * let err = "";
 * const io = { out: () => {}, err: (t: string) => { err += t; }, isTerminal: false };
 * await preflightSandbox("none", io, "run");
 * equal(err.includes("UNSANDBOXED"), true);
 * ```
 */
export async function preflightSandbox(
  requirement: SandboxRequirement,
  io: Pick<CliIo, "err">,
  command: string,
  probe?: SandboxProbe,
): Promise<void> {
  if (requirement === "none") {
    io.err(`vouch ${command}: warning: ${UNSANDBOXED_WARNING}\n`);
    return;
  }
  const found = probe ?? await probeSandbox();
  if (!found.bwrap.available) throw sandboxUnavailable(found, requirement);
}
