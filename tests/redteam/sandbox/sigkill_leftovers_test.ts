/**
 * Issue #20, as root: a vouch killed by SIGKILL in the middle of a mapped
 * check leaves nothing of the user map behind. Each process makes one
 * `vouch-userns-*` directory for the map launcher's FIFOs under the temp dir;
 * before, only a normal exit removed it (79 of them were found on a CI box).
 * Now a reaper shell in its own session removes it once vouch is gone,
 * however it ended (`adapters/process/_user_launch.ts`).
 *
 * Likewise the write budget: it was a `vouch-stamp-*` file per check in the
 * temp dir, removed after the child, so one was left per check a SIGKILL
 * interrupted. The budget's start is a time now (`find -newerct`), no file.
 */
import assert from "node:assert/strict";
import { isRoot, skipReason } from "./_cli.ts";

const HERE = new URL(".", import.meta.url);
const ROOT = new URL("../../../", HERE).pathname;

/**
 * Starts a vouch (a Deno program) whose temp dir is a fresh one, lets a mapped check start (its
 * marker written from inside the sandbox), kills vouch with SIGKILL and returns what is left in
 * its temp dir once `done` says so or 60 s passed (the reaper acts once the kernel closed the
 * dead vouch's pipe).
 */
async function leftAfterSigkill(done: (left: string[]) => boolean): Promise<string[]> {
  const tmp = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-rt-kill-" }));
  const tree = `${tmp}/tree`;
  await Deno.mkdir(tree);
  const script = `${tmp}/one.ts`;
  await Deno.writeTextFile(
    script,
    `import { runProcess } from "${ROOT}adapters/process/run.ts";
import { bwrapProfile } from "${ROOT}adapters/sandbox/bwrap.ts";
const sandbox = bwrapProfile({ worktree: "${tree}" });
if (sandbox.userMap === undefined) throw new Error("not mapped");
await runProcess({ shell: "echo started > started; sleep 60", cwd: "${tree}", sandbox, timeoutMs: 90000 });
`,
  );
  await Deno.mkdir(`${tmp}/own`);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-lock", `--config=${ROOT}deno.json`, script],
    // Everything the vouch process makes under the temp dir lands here.
    env: { TMPDIR: `${tmp}/own`, PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
    clearEnv: true,
    stdout: "null",
    stderr: "piped",
  }).spawn();
  try {
    // The check runs (it wrote its marker from inside the sandbox).
    const deadline = Date.now() + 120_000;
    while (!(await Deno.stat(`${tree}/started`).then(() => true, () => false))) {
      assert.ok(Date.now() < deadline, "the check never started");
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal((await Deno.stat(`${tree}/started`)).uid, 65534);
    child.kill("SIGKILL");
    const status = await child.status;
    assert.equal(status.signal, "SIGKILL");
    await child.stderr.cancel();
    const left = async () => {
      const names: string[] = [];
      for await (const e of Deno.readDir(`${tmp}/own`)) names.push(e.name);
      return names.sort();
    };
    const gone = Date.now() + 60_000;
    while (!done(await left()) && Date.now() < gone) {
      await new Promise((r) => setTimeout(r, 200));
    }
    return await left();
  } finally {
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
}

const named = (prefix: string) => (names: string[]) => names.filter((n) => n.startsWith(prefix));

Deno.test({
  name: "root: a SIGKILLed vouch in the middle of a mapped check leaves no vouch-userns-* dir",
  ignore: skipReason !== null || !isRoot,
  fn: async () => {
    const userns = named("vouch-userns-");
    assert.deepEqual(userns(await leftAfterSigkill((left) => userns(left).length === 0)), []);
  },
});

Deno.test({
  name: "root: a SIGKILLed vouch in the middle of a check leaves no vouch-stamp-* file",
  ignore: skipReason !== null || !isRoot,
  fn: async () => {
    const stamps = named("vouch-stamp-");
    // Waits for the reaper too (a stamp under its dir would go with it), then looks.
    const left = await leftAfterSigkill((names) => named("vouch-userns-")(names).length === 0);
    assert.deepEqual(stamps(left), []);
  },
});
