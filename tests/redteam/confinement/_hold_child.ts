/**
 * A stand-in for vouch that starts one child through `runProcess` and is then
 * killed: `HOLD_TAG=<tag> deno run -A _hold_child.ts <bwrap|none> <dir>` runs
 * `sh -c 'sleep 120'` with `<tag>` as its `$0` in `dir` (in bwrap, or
 * unsandboxed), prints `started` once the child wrote its first output, and
 * waits. The tag reaches the child's argv only (never this process's): the
 * test kills this process with SIGKILL and looks for the tag.
 */
import { runProcess } from "../../../adapters/process/run.ts";
import { bwrapProfile } from "../../../adapters/sandbox/bwrap.ts";
import { probeSandbox } from "../../../adapters/host/sandbox_probe.ts";

const [kind, dir] = Deno.args;
const tag = Deno.env.get("HOLD_TAG")!;
const probe = await probeSandbox();
const sandbox = kind === "bwrap"
  ? bwrapProfile({ worktree: dir!, bwrapPath: probe.bwrap.path! })
  : { kind: "none" as const };
const shell = `echo started; exec sh -c 'sleep 120' ${tag}`;
await runProcess({
  shell,
  cwd: dir!,
  sandbox,
  timeoutMs: 200_000,
  onStdout: () => console.log("started"),
});
