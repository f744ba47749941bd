/**
 * Golden CLI tests for the situations that used to crash with a stack trace.
 * Each runs the real `vouch` executable (cli/main.ts in a child Deno, with the
 * `deno task vouch` permissions) against a real git repository and checks
 * that stderr is exactly one line naming the problem and its code, that
 * "Uncaught" and stack frames never appear, and the exit code.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { EXIT } from "../../cli/command.ts";

const MAIN = join(dirname(fileURLToPath(import.meta.url)), "../../cli/main.ts");
const PERMISSIONS = [
  "--no-prompt",
  "--deny-net",
  "--deny-ffi",
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-run",
];

interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function vouchCommand(args: string[], env: Record<string, string>, cwd: string): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", ...PERMISSIONS, MAIN, ...args],
    cwd,
    env: { ...env, NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
}

async function vouch(args: string[], env: Record<string, string>, cwd: string): Promise<CliRun> {
  const out = await vouchCommand(args, env, cwd).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

/** stderr is one line, starts with the command, has no trace; returns that line. */
function oneCleanLine(run: CliRun, command: string): string {
  assert.doesNotMatch(run.stderr, /Uncaught/);
  assert.doesNotMatch(run.stderr, /^\s+at /m, "no stack frames");
  // Progress lines (`verify: check "x"`, `Note: ...`) and the `--sandbox none` warning every
  // unsandboxed run prints may precede the error.
  const lines = run.stderr.split("\n").filter((l) =>
    l !== "" && !l.includes(': check "') && !l.startsWith("Note: ") &&
    !l.includes(": warning: UNSANDBOXED")
  );
  assert.equal(lines.length, 1, `expected one line on stderr, got:\n${run.stderr}`);
  assert.ok(lines[0]!.startsWith(`vouch ${command}: `), lines[0]);
  return lines[0]!;
}

async function git(dir: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("git", { args, cwd: dir, stdout: "null", stderr: "piped" })
    .output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
}

/** The child environment: no inherited secrets, a key file and worktrees under the scratch dir. */
interface RepoEnv extends Record<string, string> {
  readonly VOUCH_KEY_FILE: string;
}

/** A one-commit repository, a patch for it, a key file and a worktree root outside it. */
async function withRepo(
  fn: (repo: string, patch: string, env: RepoEnv, scratch: string) => Promise<void>,
): Promise<void> {
  const scratch = await Deno.makeTempDir({ prefix: "vouch-errors-" });
  const repo = join(scratch, "repo");
  await Deno.mkdir(repo);
  await git(repo, "init", "-q");
  await git(repo, "config", "user.email", "t@example.invalid");
  await git(repo, "config", "user.name", "t");
  await Deno.writeTextFile(join(repo, "a.txt"), "hi\n");
  await git(repo, "add", ".");
  await git(repo, "commit", "-qm", "init");
  const patch = join(scratch, "fix.patch");
  await Deno.writeTextFile(
    patch,
    "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-hi\n+bye\n",
  );
  const env: RepoEnv = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: Deno.env.get("HOME") ?? scratch,
    XDG_STATE_HOME: join(scratch, "state"),
    VOUCH_KEY_FILE: join(scratch, "keys", "mac.key"),
    VOUCH_WORKTREE_ROOT: join(scratch, "wt"),
  };
  try {
    await fn(repo, patch, env, scratch);
  } finally {
    await Deno.remove(scratch, { recursive: true });
  }
}

const verifyArgs = (patch: string, cmd = "true") => [
  "verify",
  "--patch",
  patch,
  "--verify",
  cmd,
  "--sandbox",
  "none",
];

Deno.test("vouch verify works in the fixture repository (the baseline the error cases break)", async () => {
  await withRepo(async (repo, patch, env) => {
    const run = await vouch(verifyArgs(patch), env, repo);
    assert.equal(run.code, EXIT.ok, run.stderr);
    assert.match(run.stdout, /^VERIFIED sha256:/);
  });
});

Deno.test("a second vouch verify while another holds the log lock: one line, exit 5", async () => {
  await withRepo(async (repo, patch, env, scratch) => {
    const release = join(scratch, "release");
    // The first verify's check waits until the test releases it, so the lock is held meanwhile.
    const holder = vouchCommand(
      verifyArgs(patch, `while [ ! -e '${release}' ]; do sleep 0.05; done`),
      env,
      repo,
    ).spawn();
    try {
      const lock = join(repo, ".vouch", "events.jsonl.lock");
      for (let i = 0; i < 600; i++) {
        if (await Deno.stat(lock).then(() => true, () => false)) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const second = await vouch(verifyArgs(patch), env, repo);
      assert.equal(second.code, EXIT.couldNotRun, second.stderr);
      const line = oneCleanLine(second, "verify");
      assert.match(line, /events\.jsonl\.lock is held by pid \d+/);
      assert.match(line, /\(locked\)$/);
    } finally {
      await Deno.writeTextFile(release, "");
    }
    const first = await holder.output();
    assert.equal(first.code, EXIT.ok, new TextDecoder().decode(first.stderr));
  });
});

Deno.test("vouch verify on a repository whose log was tampered with: one line, exit 5", async () => {
  await withRepo(async (repo, patch, env) => {
    assert.equal((await vouch(verifyArgs(patch), env, repo)).code, EXIT.ok);
    const log = join(repo, ".vouch", "events.jsonl");
    const lines = (await Deno.readTextFile(log)).split("\n");
    // The second record's own seq (a kernel event's body has a seq of its own too).
    const tampered = lines[1]!.replace(/"seq":2,"task":"/, '"seq":7,"task":"');
    assert.notEqual(tampered, lines[1], "nothing tampered");
    lines[1] = tampered;
    await Deno.writeTextFile(log, lines.join("\n"));
    const run = await vouch(verifyArgs(patch), env, repo);
    assert.equal(run.code, EXIT.couldNotRun, run.stderr);
    assert.match(oneCleanLine(run, "verify"), /events\.jsonl: .*line 2.*\(tampered\)$/);
  });
});

Deno.test("vouch verify when the log path is a directory: one line, exit 5", async () => {
  await withRepo(async (repo, patch, env) => {
    await Deno.mkdir(join(repo, ".vouch", "events.jsonl"), { recursive: true });
    const run = await vouch(verifyArgs(patch), env, repo);
    assert.equal(run.code, EXIT.couldNotRun, run.stderr);
    assert.match(oneCleanLine(run, "verify"), /Cannot read log .*events\.jsonl.*\(io\)$/);
  });
});

Deno.test("vouch verify when .vouch is a file: one line naming it, exit 5", async () => {
  await withRepo(async (repo, patch, env) => {
    await Deno.writeTextFile(join(repo, ".vouch"), "not a directory\n");
    const run = await vouch(verifyArgs(patch), env, repo);
    assert.equal(run.code, EXIT.couldNotRun, run.stderr);
    const line = oneCleanLine(run, "verify");
    assert.match(line, /\.vouch: it is not a directory/);
    assert.match(line, /\(state_dir_not_directory\)$/);
  });
});

Deno.test("vouch verify with a corrupt key file: one line, exit 5", async () => {
  await withRepo(async (repo, patch, env) => {
    await Deno.mkdir(dirname(env.VOUCH_KEY_FILE), { recursive: true });
    await Deno.writeTextFile(env.VOUCH_KEY_FILE, "garbage\n", { mode: 0o600 });
    const run = await vouch(verifyArgs(patch), env, repo);
    assert.equal(run.code, EXIT.couldNotRun, run.stderr);
    assert.match(oneCleanLine(run, "verify"), /Cannot load MAC key .*mac\.key.*\(corrupt\)$/);
  });
});

Deno.test("vouch run when .vouch is a file: the same one line, exit 5", async () => {
  await withRepo(async (repo, _patch, env) => {
    await Deno.writeTextFile(join(repo, ".vouch"), "");
    const run = await vouch(
      [
        "run",
        "--goal",
        "g",
        "--verify",
        "true",
        "--backend",
        "command:/bin/true",
        "--sandbox",
        "none",
      ],
      env,
      repo,
    );
    assert.equal(run.code, EXIT.couldNotRun, run.stderr);
    assert.match(oneCleanLine(run, "run"), /\(state_dir_not_directory\)$/);
  });
});

Deno.test("VOUCH_DEBUG=1 adds the stack trace after the same line", async () => {
  await withRepo(async (repo, patch, env) => {
    await Deno.writeTextFile(join(repo, ".vouch"), "");
    const run = await vouch(verifyArgs(patch), { ...env, VOUCH_DEBUG: "1" }, repo);
    assert.equal(run.code, EXIT.couldNotRun);
    const [first, ...rest] = run.stderr.split("\n").filter((l) =>
      !l.startsWith("Note: ") && !l.includes(": warning: UNSANDBOXED")
    );
    assert.match(first!, /^vouch verify: .*\(state_dir_not_directory\)$/);
    assert.match(rest.join("\n"), /^\s+at /m);
    assert.doesNotMatch(run.stderr, /Uncaught/);
  });
});

Deno.test("vouch inspect and vouch attest on a log path that is a directory: one line, exit 5", async () => {
  await withRepo(async (repo, _patch, env) => {
    await Deno.mkdir(join(repo, ".vouch", "events.jsonl"), { recursive: true });
    for (
      const [command, args] of [["inspect", []], ["attest", ["export", "--out", "a.json"]]] as const
    ) {
      const run = await vouch([command, ...args], env, repo);
      assert.equal(run.code, EXIT.couldNotRun, run.stderr);
      assert.match(
        oneCleanLine(run, command),
        /^vouch \w+: Cannot read log .*events\.jsonl: .*\(io\)$/,
      );
    }
  });
});

Deno.test("vouch inspect of a log that does not exist: one line, exit 5", async () => {
  await withRepo(async (repo, _patch, env) => {
    const run = await vouch(["inspect", join(repo, "nope.jsonl")], env, repo);
    assert.equal(run.code, EXIT.couldNotRun, run.stderr);
    assert.match(oneCleanLine(run, "inspect"), /Cannot read log .*nope\.jsonl.*\(io\)$/);
    // The reason in words, not the runtime's `Error: ENOENT: ..., open '<path again>'`.
    assert.match(oneCleanLine(run, "inspect"), /nope\.jsonl: no such file or directory \(io\)$/);
  });
});
