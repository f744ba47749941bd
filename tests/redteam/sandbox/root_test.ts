/**
 * Red team, issue #20 §2: root in the sandbox must not be root on the host.
 * Checks ran as uid 0 in the initial user namespace, so the host's
 * `/proc/sys` was writable (a check set `kernel.core_pattern` to a script in
 * its tree, and a crash ran it on the host as root). Now every sandbox has its
 * own user namespace, no capabilities (bounding set empty) and `/proc/sys`,
 * `/sys`, `/proc/sysrq-trigger` read-only or absent.
 *
 * The probe NEVER changes a host setting: it only opens the knobs for writing
 * (no truncation, no byte written) and closes them again.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { runProcess } from "../../../adapters/process/run.ts";
import { bwrapProfile } from "../../../adapters/sandbox/bwrap.ts";
import { agentProfile } from "../../../adapters/sandbox/agent_profile.ts";
import {
  checkReasons,
  isRoot,
  probe,
  rerunAsNobody,
  skipReason,
  unmapped,
  verifyCheck,
} from "./_cli.ts";

const PROBE = Deno.readTextFileSync(fileURLToPath(new URL("./_probe.py", import.meta.url)));
const python = ["/usr/bin/python3", "/bin/python3"].find((p) => {
  try {
    return Deno.statSync(p).isFile;
  } catch {
    return false;
  }
});
const ignore = skipReason !== null || python === undefined;
if (python === undefined) console.log("SKIP sandbox root red-team: python3 not in /usr/bin");

Deno.test({
  name: "root: a check (via `deno task vouch verify`) cannot open /proc/sys or /sys for writing",
  ignore,
  fn: async () => {
    const r = await verifyCheck({ run: "python3 probe.py" }, {}, { "probe.py": PROBE });
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    assert.deepEqual(checkReasons(r), [], r.stdout);
  },
});

async function probeIn(kind: "check" | "agent", asUser: boolean) {
  const tree = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-rt-root-" }));
  const scratch = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-rt-root-s-" }));
  try {
    await Deno.writeTextFile(`${tree}/probe.py`, PROBE);
    // A system-only PATH and no HOME: the same command line must work for nobody.
    const common = { worktree: tree, bwrapPath: probe.bwrap.path!, home: "/nonexistent" };
    const built = kind === "check"
      ? bwrapProfile({ ...common, path: "/usr/bin:/bin" })
      : agentProfile({ ...common, scratch });
    // Re-run by nobody: the command line a normal user's vouch spawns (no user map).
    const profile = asUser ? unmapped(built) : built;
    const r = await runProcess({
      argv: [python!, "probe.py"],
      cwd: tree,
      sandbox: profile,
      timeoutMs: 30_000,
      env: { PATH: "/usr/bin:/bin" },
    });
    if (!asUser) return { code: r.exitCode, out: r.stdout.head + r.stderr.head };
    // The very command line vouch spawned, now started by a normal user (bwrap then makes the
    // user namespace itself, unprivileged).
    for (const d of [tree, scratch]) await Deno.chmod(d, 0o777);
    await Deno.chmod(`${tree}/probe.py`, 0o644);
    const u = await rerunAsNobody(r.spawnedArgv, tree);
    return { code: u.code, out: u.stdout + u.stderr };
  } finally {
    await Deno.remove(tree, { recursive: true });
    await Deno.remove(scratch, { recursive: true });
  }
}

for (const kind of ["check", "agent"] as const) {
  Deno.test({
    name: `root: ${kind} sandbox as ${
      isRoot ? "root" : "this user"
    }: own user namespace, no capabilities, kernel knobs read-only`,
    ignore,
    fn: async () => {
      const r = await probeIn(kind, false);
      assert.equal(r.code, 0, r.out);
      assert.match(r.out, /refused \/proc\/sys\/kernel\/core_pattern: E(ROFS|ACCES|PERM)/);
      assert.match(r.out, /CapEff 0+\n/);
      assert.match(r.out, /CapBnd 0+\n/);
    },
  });
  Deno.test({
    name: `root: ${kind} sandbox started by a normal user (setpriv nobody): the same holds`,
    ignore: ignore || !isRoot,
    fn: async () => {
      const r = await probeIn(kind, true);
      assert.equal(r.code, 0, r.out);
      assert.match(r.out, /refused \/proc\/sys\/kernel\/core_pattern: E(ROFS|ACCES|PERM)/);
      assert.match(r.out, /uid 65534/);
      assert.match(r.out, /CapEff 0+\n/);
    },
  });
}
