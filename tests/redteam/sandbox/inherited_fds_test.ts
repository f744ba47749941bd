/**
 * Red team B, finding 1: file descriptors vouch inherits from its parent (a CI
 * wrapper, an IDE or agent harness, `make`'s jobserver, a shell's `exec 50<>f`)
 * without close-on-exec reached every sandboxed child, open, whatever the
 * allowlisted filesystem said: a check read and wrote a root-only host file
 * through one. And the launcher's `.b` FIFO (fd 9) stayed open in the command.
 *
 * Now the command starts with only stdin, stdout and stderr: the real CLI
 * (`deno task vouch`'s flags, the real deno binary, not npx, which drops low
 * fds) is started by a shell holding fds 7, 23, 50 and 251 open on a 0600
 * host file; the check lists its fds and tries to read and write through them.
 */
import assert from "node:assert/strict";
import { probe, skipReason, verifyCheck } from "./_cli.ts";

const BASH = ["/bin/bash", "/usr/bin/bash"].find((p) => {
  try {
    return Deno.statSync(p).isFile;
  } catch {
    return false;
  }
});
if (BASH === undefined) console.log("SKIP inherited fds red-team: bash not installed");
const ignore = skipReason !== null || BASH === undefined;

const FDS = [7, 23, 50, 251];

/**
 * What the check runs: its shell's open fds, then bash tries each inherited fd for reading and
 * writing (bash: dash cannot name an fd above 9).
 */
const CHECK = [
  // The fds a program the check starts has: ls's own (its dir fd on /proc/<pid>/fd aside).
  'ls -l /proc/self/fd | sed 1d | awk \'{ print "FD " $(NF-2) " " $NF }\'',
  `bash -c 'for n in ${FDS.join(" ")} 8 9; do ` +
  `{ head -c 100 <&$n | rev | sed "s/^/READ $n: /"; } 2>/dev/null; ` +
  `{ echo written-by-check >&$n && echo "WROTE $n"; } 2>/dev/null; done'`,
  "echo END",
].join("; ");

/** The fds the check's `ls` listed, but its own directory fd. */
function openFds(out: string): string[] {
  return [...out.matchAll(/^FD (\d+) (.*)$/gm)]
    .filter((m) => !/^\/proc\/\d+\/fd$/.test(m[2]!))
    .map((m) => m[1]!);
}

async function hostSecret(): Promise<{ dir: string; file: string }> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-rt-fds-" }));
  const file = `${dir}/host-secret.txt`;
  await Deno.writeTextFile(file, "TOP-SECRET-HOST-DATA\n");
  await Deno.chmod(file, 0o600);
  return { dir, file };
}

/** bash opening `file` on every fd of FDS (no close-on-exec), then exec'ing what follows. */
function holder(file: string): string[] {
  const opens = FDS.map((n) => `exec ${n}<>"$0"`).join("; ");
  return [BASH!, "-c", `${opens}; exec "$@"`, file];
}

Deno.test({
  name: "fds: a check run by `vouch verify` sees only 0, 1, 2 of the fds its parent held open",
  ignore,
  fn: async () => {
    const secret = await hostSecret();
    try {
      const r = await verifyCheck({ name: "fds", run: CHECK, wrap: holder(secret.file) });
      const checks = (r.json?.["checks"] ?? []) as { outputTail?: string }[];
      const tail = checks.map((c) => c.outputTail ?? "").join("\n");
      assert.match(tail, /END/, `${r.stdout}\n${r.stderr}`);
      assert.doesNotMatch(tail, /READ|WROTE/, tail);
      assert.deepEqual(openFds(tail), ["0", "1", "2"], tail);
      assert.equal(await Deno.readTextFile(secret.file), "TOP-SECRET-HOST-DATA\n");
    } finally {
      await Deno.remove(secret.dir, { recursive: true });
    }
  },
});

/**
 * The same through `runProcess` in a vouch of its own started by the holder: a check's profile
 * and an agent's (with its git env), each started by the real deno binary.
 */
const RUNNER = `
import { runProcess } from "${new URL("../../../adapters/process/run.ts", import.meta.url)}";
import { bwrapProfile } from "${new URL("../../../adapters/sandbox/bwrap.ts", import.meta.url)}";
import { agentProfile } from "${new URL(
  "../../../adapters/sandbox/agent_profile.ts",
  import.meta.url,
)}";
const [kind, tree, scratch, bwrapPath] = Deno.args;
const common = { worktree: tree, bwrapPath, home: "/nonexistent" };
const sandbox = kind === "check" ? bwrapProfile(common) : agentProfile({ ...common, scratch });
const r = await runProcess({ shell: Deno.args[4], cwd: tree, sandbox, timeoutMs: 30_000 });
console.log(JSON.stringify({ code: r.exitCode, out: r.stdout.head + r.stderr.head }));
`;

for (const kind of ["check", "agent"] as const) {
  Deno.test({
    name: `fds: a${kind === "agent" ? "n" : ""} ${kind} started by runProcess gets no inherited fd`,
    ignore,
    fn: async () => {
      const secret = await hostSecret();
      const tree = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-rt-fds-t-" }));
      const scratch = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-rt-fds-s-" }));
      const script = `${secret.dir}/runner.ts`;
      try {
        await Deno.chmod(tree, 0o777);
        await Deno.writeTextFile(script, RUNNER);
        const argv = [
          ...holder(secret.file),
          Deno.execPath(),
          "run",
          "-A",
          "--no-check",
          script,
          kind,
          tree,
          scratch,
          probe.bwrap.path!,
          CHECK,
        ];
        const out = await new Deno.Command(argv[0]!, {
          args: argv.slice(1),
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).output();
        const text = new TextDecoder().decode(out.stdout);
        const r = JSON.parse(text.trim().split("\n").at(-1)!) as { code: number; out: string };
        assert.equal(r.code, 0, r.out + new TextDecoder().decode(out.stderr));
        assert.doesNotMatch(r.out, /READ|WROTE/, r.out);
        assert.deepEqual(openFds(r.out), ["0", "1", "2"], r.out);
        assert.equal(await Deno.readTextFile(secret.file), "TOP-SECRET-HOST-DATA\n");
      } finally {
        await Deno.remove(tree, { recursive: true });
        await Deno.remove(scratch, { recursive: true });
        await Deno.remove(secret.dir, { recursive: true });
      }
    },
  });
}
