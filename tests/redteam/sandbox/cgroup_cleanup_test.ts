/**
 * The per-child cgroups vouch makes (where the host lets it: as root on this
 * kind of host) are reused from child to child and removed when vouch exits,
 * by `process.exit`, `Deno.exit` or the end of the program, under the CLI's
 * own Deno flags: nothing is left in the host's cgroup tree.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { cgroupHost } from "../../../adapters/process/_kernel_limits.ts";
import { runAsVouch } from "../../golden/cli_harness.ts";
import { skipReason } from "./_cli.ts";

const host = cgroupHost();
if (host === null) console.log("SKIP cgroup cleanup: no cgroup vouch may make here");
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

const SCRIPT = (how: string) => `
import { runProcess } from "${ROOT}adapters/process/run.ts";
import { bwrapProfile } from "${ROOT}adapters/sandbox/bwrap.ts";
import process from "node:process";
const tree = Deno.makeTempDirSync();
const sandbox = bwrapProfile({ worktree: tree });
const dirs = new Set();
await Promise.all([1, 2].map(async () => {
  for (let i = 0; i < 3; i++) {
    const r = await runProcess({ argv: ["/bin/true"], cwd: tree, sandbox, timeoutMs: 30000 });
    if (r.exitCode !== 0) throw new Error(r.stderr.head);
    dirs.add(r.spawnedArgv.find((a) => a.includes("/vouch-")));
  }
}));
Deno.removeSync(tree, { recursive: true });
console.log(JSON.stringify([...dirs]));
${how}
`;

for (const how of ["", "Deno.exit(0);", "process.exit(0);"]) {
  Deno.test({
    name: `cgroups: reused between children and removed at exit (${how || "end of program"})`,
    ignore: skipReason !== null || host === null,
    fn: async () => {
      const out = await runAsVouch(SCRIPT(how));
      const text = out.stdout;
      assert.equal(out.code, 0, out.stderr);
      const dirs = JSON.parse(text.trim().split("\n").at(-1)!) as string[];
      // Six children, two at a time: at most a few dirs, each under vouch's own cgroup.
      assert.ok(dirs.length >= 1 && dirs.length < 6, text);
      for (const d of dirs) {
        assert.ok(d.startsWith(`${host!.parent}/vouch-`), d);
        const left = await Deno.stat(d).then(() => true, () => false);
        assert.equal(left, false, `${d} was left behind`);
      }
    },
  });
}
