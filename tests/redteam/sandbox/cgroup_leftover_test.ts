/**
 * Nothing outlives a child's cgroup: a process still in a sandboxed child's
 * cgroup once the child has exited is killed by the after-child script
 * (`adapters/process/_kernel_limits.ts`), not merely left there with the
 * cgroup set aside. Seen on a CI box at load: an agent's sandbox whose init
 * outlived bwrap (released by its user map after bwrap was killed, before
 * `--die-with-parent` was armed) ran on for minutes after the test's vouch
 * had gone, a deno forwarder and the agent under it, alone in their cgroup.
 *
 * The test puts a plain `sleep` in the cgroup vouch hands a child (where the
 * host lets vouch make one: as root here) and runs the after-child step; the
 * sleep must die of SIGKILL, and the cgroup must not be reused.
 */
import assert from "node:assert/strict";
import {
  afterChildAsync,
  cgroupHost,
  childCgroup,
} from "../../../adapters/process/_kernel_limits.ts";
import { runAsVouch } from "../../golden/cli_harness.ts";

const host = cgroupHost();
const why = host === null ? "no cgroup vouch may make here" : null;
if (why !== null) console.log(`SKIP cgroup leftovers: ${why}`);

Deno.test({
  name: "cgroup leftovers: a process left in a child's cgroup after the child is killed, not kept",
  ignore: why !== null,
  fn: async () => {
    const limits = { memoryMb: 256, processes: 16, fileSizeMb: 16, tmpMb: 16 };
    const cg = childCgroup(limits)!;
    await Deno.mkdir(cg.dir).catch((e) => {
      if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
    });
    const left = new Deno.Command("/bin/sleep", { args: ["300"], stdin: "null" }).spawn();
    try {
      await Deno.writeTextFile(`${cg.dir}/cgroup.procs`, `${left.pid}\n`);
      const procs = await Deno.readTextFile(`${cg.dir}/cgroup.procs`);
      assert.ok(procs.split("\n").includes(String(left.pid)), procs);
      await afterChildAsync(cg.dir, null);
      const status = await Promise.race([
        left.status,
        new Promise<null>((r) => setTimeout(() => r(null), 10_000)),
      ]);
      assert.notEqual(status, null, "the process left in the cgroup is still running");
      assert.equal(status!.signal, "SIGKILL");
      // Set aside, not handed to the next child.
      assert.notEqual(childCgroup(limits)!.dir, cg.dir);
    } finally {
      try {
        left.kill("SIGKILL");
      } catch {
        // already gone
      }
      await left.status;
    }
  },
});

const ROOT = new URL("../../../", import.meta.url).pathname;

/**
 * A vouch program's first lines: a child of its own cgroup holding a `sleep`, in it once the shell
 * says so (under the CLI's flags Deno may not read cgroup files), then its pid and the cgroup.
 */
const SLEEP_IN_CGROUP = `import { childCgroup } from "${ROOT}adapters/process/_kernel_limits.ts";
const cg = childCgroup({ memoryMb: 256, processes: 16, fileSizeMb: 16, tmpMb: 16 })!;
const child = new Deno.Command("/bin/sh", {
  args: ["-c", 'mkdir -p "$1" && echo $$ > "$1/cgroup.procs" && echo in && exec sleep 300', "x", cg.dir],
  stdin: "null", stdout: "piped", stderr: "null",
}).spawn();
const said = await child.stdout.getReader().read();
if (new TextDecoder().decode(said.value).trim() !== "in") throw new Error("not in its cgroup");
console.log(JSON.stringify({ pid: child.pid, dir: cg.dir }));
`;

/** Whether `pid` runs (a zombie its parent has yet to reap does not). */
async function runs(pid: number): Promise<boolean> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`).catch(() => null);
  return stat !== null && !/^\d+ \([^)]*\) Z/.test(stat);
}

/** Whether `pid` still runs after waiting up to 10 s for it to end. */
async function outlives(pid: number): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    if (!(await runs(pid))) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

/** Starts the next vouch: it makes its first cgroup (and so sweeps the gone owners' first). */
async function startNextVouch(): Promise<void> {
  const next = await runAsVouch(
    `import { childCgroup } from "${ROOT}adapters/process/_kernel_limits.ts";
childCgroup({ memoryMb: 256, processes: 16, fileSizeMb: 16, tmpMb: 16 });
`,
  );
  assert.equal(next.code, 0, next.stderr);
}

Deno.test({
  name:
    "cgroup leftovers: what a child's cgroup holds when vouch exits is killed, the cgroup removed",
  ignore: why !== null,
  fn: async () => {
    // A vouch that exits while its child's cgroup holds a process (a child started as it exits,
    // a sandbox whose bwrap was killed while it was set up): the process is orphaned, not killed,
    // unless the exit handler kills it.
    const out = await runAsVouch(`${SLEEP_IN_CGROUP}child.unref();
Deno.exit(0);
`);
    assert.equal(out.code, 0, out.stderr);
    const { pid, dir } = JSON.parse(out.stdout.trim()) as { pid: number; dir: string };
    const alive = await outlives(pid);
    if (alive) Deno.kill(pid, "SIGKILL");
    assert.equal(alive, false, `the sleep (${pid}) left in ${dir} outlived vouch`);
    let left = true;
    for (let i = 0; i < 100 && left; i++) {
      left = await exists(dir);
      if (left) await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(left, false, `${dir} was left behind`);
  },
});

Deno.test({
  name: "cgroup leftovers: a vouch killed with SIGKILL leaves nothing once the next vouch starts",
  ignore: why !== null,
  fn: async () => {
    // SIGKILL runs no exit handler: the dead vouch's cgroup and the process in it stay (what a
    // sandbox whose bwrap was killed while it was set up looks like) until a later vouch, making
    // its own first cgroup, finds the owner gone.
    const killed = await runAsVouch(`${SLEEP_IN_CGROUP}Deno.kill(Deno.pid, "SIGKILL");
`);
    assert.equal(killed.signal, "SIGKILL", killed.stderr);
    const { pid, dir } = JSON.parse(killed.stdout.trim()) as { pid: number; dir: string };
    // Named for its owner: `vouch-<pid namespace>-<pid>-<start time>-<uuid>`.
    assert.match(dir, /\/vouch-\d+-\d+-\d+-[0-9a-f-]{36}$/);
    try {
      assert.equal(await runs(pid), true, "the sleep died with its vouch: nothing to test");
      assert.equal(await exists(dir), true);
      await startNextVouch();
      assert.equal(
        await outlives(pid),
        false,
        `the sleep (${pid}) of the killed vouch's ${dir} still runs`,
      );
      assert.equal(await exists(dir), false, `${dir} left`);
    } finally {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch {
        // gone, as it should be
      }
    }
  },
});

Deno.test({
  name: "cgroup leftovers: the cgroups of a vouch that runs are never taken for a dead one's",
  ignore: why !== null,
  fn: async () => {
    // This process's own cgroup (made, so named, by this process): a second vouch starting beside
    // it must leave it and what it holds alone.
    const cg = childCgroup({ memoryMb: 256, processes: 16, fileSizeMb: 16, tmpMb: 16 })!;
    await Deno.mkdir(cg.dir).catch((e) => {
      if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
    });
    const held = new Deno.Command("/bin/sleep", { args: ["300"], stdin: "null" }).spawn();
    try {
      await Deno.writeTextFile(`${cg.dir}/cgroup.procs`, `${held.pid}\n`);
      await startNextVouch();
      const procs = await Deno.readTextFile(`${cg.dir}/cgroup.procs`);
      assert.ok(
        procs.split("\n").includes(String(held.pid)),
        `live vouch's cgroup emptied: ${procs}`,
      );
    } finally {
      held.kill("SIGKILL");
      await held.status;
      await afterChildAsync(cg.dir, null);
    }
  },
});

Deno.test({
  name: "cgroup leftovers: a pid reused by another process does not keep a gone vouch's cgroup",
  ignore: why !== null,
  fn: async () => {
    // Named for this very process but with another start time: the vouch that made it is gone and
    // its pid was given to this one.
    const ns = (await Deno.readLink("/proc/self/ns/pid")).replace(/^pid:\[(\d+)\]$/, "$1");
    const dir = `${host!.parent}/vouch-${ns}-${Deno.pid}-1-${crypto.randomUUID()}`;
    await Deno.mkdir(dir);
    try {
      await startNextVouch();
      assert.equal(await exists(dir), false, `${dir} kept`);
    } finally {
      await Deno.remove(dir).catch(() => {});
    }
  },
});
