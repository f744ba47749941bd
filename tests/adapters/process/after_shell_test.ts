/**
 * The long-lived after-child shells (adapters/process/_after_shell.ts): they
 * answer each request with its own output, concurrent requests included,
 * refuse what a line protocol cannot carry, recover from a shell that dies,
 * and a sandboxed check run through them starts no after-child shell of its
 * own (traced with strace where it is installed).
 */
import { equal, ok } from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { afterShellRun } from "../../../adapters/process/_after_shell.ts";
import { probeSandbox } from "../../../adapters/host/sandbox_probe.ts";

const ECHO = 'echo "args $#: $*"';

Deno.test("after shell: each request gets its own answer, also when several run at once", async () => {
  const one = await afterShellRun("/bin/sh", ECHO, ["a", "b c"]);
  equal(one?.out, "args 2: a b c\n");
  const many = await Promise.all(
    Array.from({ length: 5 }, (_, i) => afterShellRun("/bin/sh", ECHO, [`n${i}`, "-"])),
  );
  many.forEach((a, i) => equal(a?.out, `args 2: n${i} -\n`));
  // An empty argument and one that looks like the end marker stay arguments.
  equal(
    (await afterShellRun("/bin/sh", ECHO, ["", "vouch-after-end 1"]))?.out,
    "args 2:  vouch-after-end 1\n",
  );
});

Deno.test("after shell: an argument with a line break is never sent (the caller falls back)", async () => {
  equal(await afterShellRun("/bin/sh", ECHO, ["a\nb"]), null);
  equal(await afterShellRun("/bin/sh", ECHO, ["a\rb"]), null);
});

Deno.test("after shell: a shell that dies fails its request, the next one gets a new shell", async () => {
  const script = '[ "$1" = die ] && kill -9 $$; echo "ok $1"';
  equal((await afterShellRun("/bin/sh", script, ["first"]))?.out, "ok first\n");
  equal(await afterShellRun("/bin/sh", script, ["die"]), null);
  equal((await afterShellRun("/bin/sh", script, ["again"]))?.out, "ok again\n");
});

const strace = spawnSync("strace", ["-V"], { stdio: "ignore" }).status === 0;
const bwrap = (await probeSandbox()).bwrap.available;

Deno.test({
  name: "after shell: a sandboxed check starts the launcher and find, no after-child shell",
  ignore: !strace || !bwrap,
  fn: () => {
    const dir = Deno.makeTempDirSync({ prefix: "vouch-after-" });
    const script = `${dir}/check.ts`;
    const run = new URL("../../../adapters/process/run.ts", import.meta.url).href;
    const profile = new URL("../../../adapters/sandbox/bwrap.ts", import.meta.url).href;
    Deno.writeTextFileSync(
      script,
      `import { runProcess } from "${run}";
import { bwrapProfile } from "${profile}";
const wt = Deno.realPathSync(Deno.makeTempDirSync());
const sandbox = bwrapProfile({ worktree: wt });
for (let i = 0; i < 3; i++) {
  const r = await runProcess({ argv: ["/bin/true"], cwd: wt, sandbox, timeoutMs: 30000 });
  if (r.exitCode !== 0) throw new Error(r.stderr.head);
}`,
    );
    const trace = `${dir}/trace`;
    const r = spawnSync("strace", [
      "-f",
      "-qq",
      "-e",
      "trace=execve",
      "-o",
      trace,
      Deno.execPath(),
      "run",
      "-A",
      "--no-lock",
      `--config=${new URL("../../../deno.json", import.meta.url).pathname}`,
      script,
    ], { encoding: "utf8" });
    equal(r.status, 0, r.stderr);
    const execs = Deno.readTextFileSync(trace).split("\n").filter((l) =>
      /execve\(/.test(l) && !/ENOENT/.test(l)
    );
    const count = (re: RegExp) => execs.filter((l) => re.test(l)).length;
    equal(count(/execve\("\/usr\/bin\/bwrap"/), 3);
    equal(count(/execve\("\/bin\/true"/), 3);
    // No one-shot after-child shell; at most one long-lived one for all three checks (and, as
    // root, one for handing the tree to the sandbox's uid and one making the map's FIFOs).
    equal(count(/"vouch-after"/), 0);
    ok(count(/"vouch-after-shell"/) <= 3, `after shells ${count(/"vouch-after-shell"/)}`);
    // As root the map's FIFOs are made ahead, a batch at once: not one mkfifo per check.
    ok(count(/execve\("[^"]*\/mkfifo"/) <= 1, `mkfifo ${count(/execve\("[^"]*\/mkfifo"/)}`);
    Deno.removeSync(dir, { recursive: true });
  },
});
