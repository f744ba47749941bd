/**
 * Children start with no launcher program in front of them (no `setsid`), and
 * a sandboxed child still dies with vouch: bwrap's `--die-with-parent` kills
 * the sandbox's init when bwrap dies, and `--unshare-pid` takes every process
 * of the sandbox with it. Here a real vouch-like process (`_hold_child.ts`)
 * starts `sleep` in a real bwrap and is killed with SIGKILL (no cleanup can
 * run); the sleep must be gone. The launcher argv is checked too: what Deno's
 * `--allow-run` sees first is bwrap (or the cgroup shell), never setsid.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { runProcess } from "../../../adapters/process/run.ts";
import { bwrapProfile } from "../../../adapters/sandbox/bwrap.ts";
import { probe, skipReason } from "./_harness.ts";

const CHILD = fileURLToPath(new URL("./_hold_child.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../../../deno.json", import.meta.url));

/** Pids whose command line carries `tag`. */
function withTag(tag: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "latin1").split("\0").includes(tag)) {
        out.push(Number(name));
      }
    } catch { /* gone */ }
  }
  return out;
}

async function until(
  cond: () => boolean,
  what: string | (() => string),
  maxMs: number,
): Promise<void> {
  const end = Date.now() + maxMs;
  while (!cond()) {
    if (Date.now() > end) {
      throw new Error(`timed out waiting for ${typeof what === "string" ? what : what()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

Deno.test({
  name: "a sandboxed child dies with vouch when vouch is SIGKILLed (bwrap --die-with-parent)",
  ignore: skipReason !== null,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-die-" }));
    const tag = `vouch-die-${crypto.randomUUID()}`;
    const holder = spawn(Deno.execPath(), [
      "run",
      "-A",
      "--config",
      CONFIG,
      CHILD,
      "bwrap",
      dir,
    ], { stdio: ["ignore", "pipe", "pipe"], env: { ...Deno.env.toObject(), HOLD_TAG: tag } });
    try {
      let out = "";
      let err = "";
      holder.stdout!.on("data", (c: Buffer) => out += c.toString());
      holder.stderr!.on("data", (c: Buffer) => err += c.toString());
      // Starting a runtime and a sandbox on a loaded 2-core box can take long: not the property.
      await until(
        () => out.includes("started") && withTag(tag).length > 0,
        () =>
          `the sandboxed sleep (holder stdout ${JSON.stringify(out)}, stderr ${err.slice(-2000)})`,
        180_000,
      );
      const sleeping = withTag(tag);
      // The tag is in the sandboxed shell's argv only, never in the holder's.
      assert.ok(!sleeping.includes(holder.pid!), `${sleeping} includes the holder ${holder.pid}`);
      holder.kill("SIGKILL");
      // The kernel ends the pid namespace when bwrap dies; only reaping is left.
      await until(
        () => withTag(tag).length === 0,
        `the sleep (${sleeping.join(",")}) to die`,
        30_000,
      );
    } finally {
      holder.kill("SIGKILL");
      for (const pid of withTag(tag)) {
        try {
          Deno.kill(pid, "SIGKILL");
        } catch { /* gone */ }
      }
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "no setsid launcher: bwrap (or the cgroup shell) is what vouch spawns; a timeout ends it",
  ignore: skipReason !== null,
  fn: async () => {
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-die-" }));
    try {
      const sandbox = bwrapProfile({ worktree: dir, bwrapPath: probe.bwrap.path! });
      const r = await runProcess({
        shell: "(sleep 60 &) ; sleep 60",
        cwd: dir,
        sandbox,
        timeoutMs: 300,
        graceMs: 200,
      });
      assert.equal(r.timedOut, true);
      assert.equal(r.exitCode, 124);
      assert.ok(!r.spawnedArgv.some((a) => a.endsWith("/setsid")), r.spawnedArgv.join(" "));
      assert.ok(["/bin/sh", "/usr/bin/sh", probe.bwrap.path].includes(r.spawnedArgv[0]!));
      assert.ok(r.spawnedArgv.includes("--die-with-parent"));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
