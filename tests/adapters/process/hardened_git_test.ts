import assert from "node:assert/strict";
import { gitCommand, runGit } from "../../../adapters/git/hardened_git.ts";

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("gitCommand: hardened config flags and environment", () => {
  const { argv, env } = gitCommand(["status"], {
    env: { GIT_CONFIG_GLOBAL: "/home/u/.gitconfig" },
  });
  assert.deepEqual(argv.slice(0, 5), [
    "git",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
  ]);
  assert.equal(argv.at(-1), "status");
  assert.equal(env.GIT_CONFIG_NOSYSTEM, "1");
  assert.equal(env.GIT_CONFIG_GLOBAL, "/dev/null"); // the hardened value wins
});

Deno.test("a repository's core.fsmonitor and hooks never run through runGit", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-git-" }));
  const marker = `${dir}.fsmonitor-ran`;
  const hookMarker = `${dir}.hook-ran`;
  try {
    const init = await runGit(["init", "-q"], { cwd: dir });
    assert.equal(init.exitCode, 0, init.stderr.head);
    await Deno.writeTextFile(`${dir}/evil.sh`, `#!/bin/sh\ntouch ${marker}\n`);
    await Deno.chmod(`${dir}/evil.sh`, 0o755);
    await Deno.writeTextFile(`${dir}/.git/hooks/pre-commit`, `#!/bin/sh\ntouch ${hookMarker}\n`);
    await Deno.chmod(`${dir}/.git/hooks/pre-commit`, 0o755);
    const cfg = await runGit(["config", "core.fsmonitor", `${dir}/evil.sh`], { cwd: dir });
    assert.equal(cfg.exitCode, 0);
    await Deno.writeTextFile(`${dir}/a.txt`, "a\n");

    // Control: plain git honours the repository config and runs the fsmonitor.
    new Deno.Command("git", { args: ["status"], cwd: dir, stdout: "null", stderr: "null" })
      .outputSync();
    assert.equal(await exists(marker), true, "control: plain git should run fsmonitor");
    await Deno.remove(marker);

    const st = await runGit(["status", "--porcelain"], { cwd: dir });
    assert.equal(st.exitCode, 0, st.stderr.head);
    assert.match(st.stdout.head, /a\.txt/);
    assert.equal(await exists(marker), false, "fsmonitor ran through runGit");

    await runGit(["add", "a.txt"], { cwd: dir });
    const commit = await runGit(["commit", "-qm", "x"], {
      cwd: dir,
      env: {
        GIT_AUTHOR_NAME: "t",
        GIT_AUTHOR_EMAIL: "t@t",
        GIT_COMMITTER_NAME: "t",
        GIT_COMMITTER_EMAIL: "t@t",
      },
    });
    assert.equal(commit.exitCode, 0, commit.stderr.head);
    assert.equal(await exists(hookMarker), false, "pre-commit hook ran through runGit");
    assert.equal(await exists(marker), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
    for (const m of [marker, hookMarker]) await Deno.remove(m).catch(() => {});
  }
});
