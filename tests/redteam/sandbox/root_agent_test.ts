/**
 * Red team, issue #20 §2, as root: an agent's root must not be host root.
 * Before, agents stayed unmapped when vouch ran as root (only checks were):
 * a `command:` agent's shell read a root-only 0600 file beside its own
 * program (its directory is bound read-only for it), and its `--version`
 * preflight ran as host uid 0 too. Now every agent child (the agent, its
 * egress forwarder and proxy, its preflight) runs as host uid 65534, like a
 * check, and still writes its own tree; `/proc/sys` stays closed to it.
 *
 * Issue #20 leftover: an agent program in a 0700 directory of root's (a
 * mkdtemp dir) is closed to that uid; the run failed with only "exit 126".
 * Now it fails before it starts, saying why and what to do.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createRepo } from "../../golden/fixture_repos.ts";
import { commandBackend } from "../../../adapters/backends/mod.ts";
import {
  confinedBackend,
  probeAgentCliConfined,
} from "../../../adapters/driver/confined_backend.ts";
import { createWorktree, removeWorktree } from "../../../adapters/worktree/mod.ts";
import { isRoot, probe, skipReason } from "./_cli.ts";

// The agent's observations, written into its worktree (its own tree, handed to it).
const AGENT = `#!/bin/sh
d=$(dirname "$0")
{
  cat "$d/secret" 2>&1 && echo READ-ROOT-SECRET
  ( : >> /proc/sys/kernel/core_pattern ) 2>/dev/null && echo PROC-SYS-WRITABLE || echo proc-sys-refused
  echo "map $(head -1 /proc/self/uid_map)"
} > probe.txt
echo fixed > fix.txt
`;

// As its \`--version\`: what it can read and which host uid it is.
const VERSION = `#!/bin/sh
d=$(dirname "$0")
s=$(cat "$d/secret" 2>/dev/null || echo unreadable)
echo "fake-agent 1.0 secret=$s uid=$(awk 'NR == 1 { print $2 }' /proc/self/uid_map)"
`;

/** A program dir (0755) with the script `name` and root's 0600 `secret` beside it. */
async function programDir(name: string, script: string, mode = 0o755): Promise<string> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-rt-agent-bin-" }));
  await Deno.chmod(dir, mode);
  await Deno.writeTextFile(join(dir, name), script, { mode: 0o755 });
  await Deno.writeTextFile(join(dir, "secret"), "root-only\n", { mode: 0o600 });
  return dir;
}

/** Runs a `command:` agent at `program` (its dir bound read-only) in a fresh worktree. */
async function runAgent(bin: string, program: string) {
  const repo = await createRepo({ "a.txt": "a\n" }, "true", { prefix: "vouch-rt-agent-" });
  const root = await Deno.makeTempDir({ prefix: "vouch-rt-agent-wt-" });
  try {
    const wt = await createWorktree({ repo: repo.dir, taskId: "rta", attempt: 1, root });
    try {
      const backend = confinedBackend(
        (sandbox) => commandBackend({ argv: [program], sandbox }),
        "bwrap",
        { readOnly: [bin], probe },
      );
      const r = await backend.run({
        taskId: "rta",
        attempt: 1,
        goal: "probe",
        worktree: wt.path,
        allowedRoots: [],
        forbiddenPaths: [],
        maxSeconds: 60,
        maxOutputMb: 4,
      }, { signal: new AbortController().signal, emit: () => {} });
      const seen = await Deno.readTextFile(join(wt.path, "probe.txt")).catch(() => null);
      const fix = await Deno.stat(join(wt.path, "fix.txt")).catch(() => null);
      return { r, seen, fixUid: fix?.uid ?? null };
    } finally {
      await removeWorktree(wt);
    }
  } finally {
    await repo.cleanup();
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
}

Deno.test({
  name: "root: a `command:` agent in a 0700 dir of root's fails before it starts, saying why " +
    "(host uid 65534 cannot enter it) and what to do",
  ignore: skipReason !== null || !isRoot,
  fn: async () => {
    const bin = await programDir("agent.sh", AGENT, 0o700);
    try {
      const { r, seen } = await runAgent(bin, join(bin, "agent.sh"));
      assert.equal(r.status, "error");
      assert.equal(r.failure?.code, "config", r.failure?.message);
      const message = r.failure?.message ?? "";
      assert.match(message, /host uid 65534 \(no capabilities\), which cannot enter /, message);
      assert.ok(message.includes(`${bin} (mode 0700, owner uid 0)`), message);
      assert.ok(message.includes(`chmod o+x ${bin}`), message);
      assert.doesNotMatch(message, /exit 126/, message);
      assert.equal(seen, null, "the agent never ran");
      // The same dir opened to others: the agent runs.
      await Deno.chmod(bin, 0o711);
      const open = await runAgent(bin, join(bin, "agent.sh"));
      assert.equal(open.r.status, "ok", open.r.failure?.message);
      assert.equal(open.fixUid, 65534);
    } finally {
      await Deno.remove(bin, { recursive: true });
    }
  },
});

Deno.test({
  name: "root: a `command:` agent runs as host uid 65534: root's 0600 file beside its program " +
    "unreadable, /proc/sys closed, its own tree writable",
  ignore: skipReason !== null || !isRoot,
  fn: async () => {
    const bin = await programDir("agent.sh", AGENT);
    const repo = await createRepo({ "a.txt": "a\n" }, "true", { prefix: "vouch-rt-agent-" });
    const root = await Deno.makeTempDir({ prefix: "vouch-rt-agent-wt-" });
    try {
      const wt = await createWorktree({ repo: repo.dir, taskId: "rta", attempt: 1, root });
      try {
        const backend = confinedBackend(
          (sandbox) => commandBackend({ argv: [join(bin, "agent.sh")], sandbox }),
          "bwrap",
          { readOnly: [bin], probe },
        );
        const r = await backend.run({
          taskId: "rta",
          attempt: 1,
          goal: "probe",
          worktree: wt.path,
          allowedRoots: [],
          forbiddenPaths: [],
          maxSeconds: 60,
          maxOutputMb: 4,
        }, { signal: new AbortController().signal, emit: () => {} });
        assert.equal(r.status, "ok", r.failure?.message);
        const seen = await Deno.readTextFile(join(wt.path, "probe.txt"));
        assert.doesNotMatch(seen, /READ-ROOT-SECRET|root-only/, seen);
        assert.match(seen, /secret: Permission denied/, seen);
        assert.match(seen, /proc-sys-refused/, seen);
        assert.doesNotMatch(seen, /PROC-SYS-WRITABLE/, seen);
        assert.match(seen, /^map\s+0\s+65534\s+1$/m, seen);
        assert.equal((await Deno.stat(join(wt.path, "fix.txt"))).uid, 65534);
      } finally {
        await removeWorktree(wt);
      }
    } finally {
      await repo.cleanup();
      await Deno.remove(root, { recursive: true }).catch(() => {});
      await Deno.remove(bin, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "root: an agent CLI's `--version` preflight runs as host uid 65534 (root's file unreadable)",
  ignore: skipReason !== null || !isRoot,
  fn: async () => {
    const bin = await programDir("fake-agent", VERSION);
    try {
      const p = await probeAgentCliConfined("fake-agent", join(bin, "fake-agent"), probe);
      assert.equal(p.available, true, p.reason ?? "");
      assert.equal(p.version, "fake-agent 1.0 secret=unreadable uid=65534");
    } finally {
      await Deno.remove(bin, { recursive: true });
    }
  },
});
