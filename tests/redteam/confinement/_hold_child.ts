/**
 * A stand-in for vouch that starts one child through `runProcess` and is then
 * killed: `deno run -A _hold_child.ts <bwrap|none> <dir> <tag>` runs
 * `sleep 120 <tag>` in `dir` (in bwrap, or unsandboxed), prints `started` once
 * the child wrote its first output, and waits. The test kills this process
 * with SIGKILL and looks for the sleep.
 */
import { runProcess } from "../../../adapters/process/run.ts";
import { bwrapProfile } from "../../../adapters/sandbox/bwrap.ts";
import { probeSandbox } from "../../../adapters/host/sandbox_probe.ts";

const [kind, dir, tag] = Deno.args;
const probe = await probeSandbox();
const sandbox = kind === "bwrap"
  ? bwrapProfile({ worktree: dir!, bwrapPath: probe.bwrap.path! })
  : { kind: "none" as const };
const shell = `echo started; exec sleep 120 ${tag}`;
await runProcess({
  shell,
  cwd: dir!,
  sandbox,
  timeoutMs: 200_000,
  onStdout: () => console.log("started"),
});
