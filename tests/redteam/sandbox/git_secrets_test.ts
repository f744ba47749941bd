/**
 * Red team B, finding 2: every check and agent got the user's whole main
 * `.git` read-only: `.git/config` (the job token actions/checkout persists as
 * `http.https://github.com/.extraheader`, tokens in remote URLs), the user's
 * index (staged, uncommitted files), the stash, the reflogs, hooks.
 *
 * Now the common dir is an allowlisted read-only view (`_git_view.ts`): a
 * sanitized config, objects, the tree's own gitdir, heads/tags/remotes. The
 * check looks for the secrets itself (reversed, past vouch's output
 * redaction) and git still works in the tree for what checks need.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createRepo, git } from "../../golden/fixture_repos.ts";
import { runVouch } from "../../golden/cli_harness.ts";
import { runProcess } from "../../../adapters/process/run.ts";
import { agentProfile } from "../../../adapters/sandbox/agent_profile.ts";
import { createWorktree, removeWorktree } from "../../../adapters/worktree/mod.ts";
import { probe, skipReason } from "./_cli.ts";

const ignore = skipReason !== null;

const GH_TOKEN = "ghs_FAKEgithubTOKEN123";
const GL_TOKEN = "glpat-FAKEgitlabTOKEN456";

/** Plants the CI token, a token in a remote URL, a stash, a staged file and a hook. */
async function plantSecrets(dir: string): Promise<void> {
  const basic = btoa(`x-access-token:${GH_TOKEN}`);
  await git(dir, "config", "http.https://github.com/.extraheader", `AUTHORIZATION: basic ${basic}`);
  await git(
    dir,
    "remote",
    "add",
    "origin",
    `https://oauth2:${GL_TOKEN}@gitlab.example.com/o/r.git`,
  );
  await git(dir, "tag", "v1.0.0");
  await Deno.writeTextFile(join(dir, "a.txt"), "a\nstashed: AWS_SECRET=stash-secret-abc\n");
  await git(dir, "stash", "-q");
  await Deno.writeTextFile(join(dir, "notes.txt"), "staged: db_password=hunter2-staged\n");
  await git(dir, "add", "notes.txt");
  await Deno.writeTextFile(join(dir, ".git/hooks/pre-commit"), "#!/bin/sh\necho hook-secret\n");
}

/**
 * What the check (or agent) runs: every way at the secrets it knows, printing `LEAK <what>`
 * (reversed evidence) for each that works; then git in the tree, printing `GIT <what> <answer>`.
 */
const PROBE = [
  'C=$(git rev-parse --git-common-dir); G=$(git rev-parse --git-dir); echo "COMMON $C"',
  // the config, read as a file and through git
  `cat "$C/config" "$G/config" "$G/config.worktree" 2>/dev/null | grep -iq -e extraheader -e url && echo "LEAK config-file"`,
  `git config --list 2>/dev/null | grep -iq -e extraheader -e 'remote\\.' -e 'http\\.' && echo "LEAK git-config"`,
  `git remote -v 2>/dev/null | grep -q . && echo "LEAK remote"`,
  // a token anywhere in plain text under the git dirs
  `grep -rlI -e FAKEgitlab -e eC1hY2Nlc3 "$C" "$G" 2>/dev/null | rev | sed 's/^/LEAK file /'`,
  // the user's index, stash, reflogs, hooks
  `git --git-dir="$C" show :notes.txt 2>/dev/null | rev | sed 's/^/LEAK index /'`,
  `git --git-dir="$C" stash list 2>/dev/null | grep -q . && echo "LEAK stash"`,
  `git stash list 2>/dev/null | grep -q . && echo "LEAK stash-in-tree"`,
  `test -e "$C/refs/stash" && echo "LEAK refs/stash"`,
  `test -e "$C/logs" && echo "LEAK logs"`,
  `test -e "$C/index" && echo "LEAK main-index"`,
  `ls "$C/hooks" 2>/dev/null | grep -q . && echo "LEAK hooks"`,
  // git for what checks need
  'echo "GIT head $(git rev-parse HEAD)"',
  'echo "GIT subject $(git log -1 --format=%s)"',
  'echo "GIT describe $(git describe --tags 2>&1)"',
  'echo "GIT files $(git ls-files | tr "\\n" " ")"',
  'git status --porcelain >/dev/null && echo "GIT status ok"',
  'ls "$G" >/dev/null && echo "GIT gitdir ok"',
  'git diff --stat HEAD >/dev/null && echo "GIT diff ok"',
  "echo END",
].join("\n");

function answers(out: string): { leaks: string[]; git: Record<string, string> } {
  const leaks = [...out.matchAll(/^LEAK .*$/gm)].map((m) => m[0]);
  const gitAnswers: Record<string, string> = {};
  for (const m of out.matchAll(/^GIT (\S+) ?(.*)$/gm)) gitAnswers[m[1]!] = m[2]!.trim();
  return { leaks, git: gitAnswers };
}

Deno.test({
  name: "git: a check run by `vouch verify` reads no token, stash or staged file; git works",
  ignore,
  fn: async () => {
    const repo = await createRepo({ "a.txt": "a\n" }, "true", { prefix: "vouch-rt-git-" });
    const state = await Deno.makeTempDir({ prefix: "vouch-rt-git-state-" });
    try {
      const head = (await git(repo.dir, "rev-parse", "HEAD")).trim();
      await Deno.writeTextFile(`${repo.dir}/probe.sh`, PROBE);
      await git(repo.dir, "add", "-N", "probe.sh");
      const patch = await git(repo.dir, "diff", "--binary", "--", "probe.sh");
      await git(repo.dir, "rm", "-q", "--cached", "probe.sh");
      await Deno.remove(`${repo.dir}/probe.sh`);
      await Deno.writeTextFile(`${repo.dir}/../fix.patch`, patch);
      await plantSecrets(repo.dir);
      const contract = { checks: [{ name: "git", run: "sh probe.sh", timeout: 60 }] };
      await Deno.writeTextFile(`${repo.dir}/../contract.json`, JSON.stringify(contract));
      const r = await runVouch(
        repo,
        ["verify", "--patch", "../fix.patch", "--contract", "../contract.json", "--json"],
        state,
      );
      const checks = (r.json?.["checks"] ?? []) as { outputTail?: string }[];
      const tail = checks.map((c) => c.outputTail ?? "").join("\n");
      assert.match(tail, /END/, `${r.stdout}\n${r.stderr}`);
      const { leaks, git: g } = answers(tail);
      assert.deepEqual(leaks, [], tail);
      assert.equal(g["head"], head, tail);
      assert.equal(g["subject"], "initial", tail);
      assert.match(g["describe"] ?? "", /^v1\.0\.0/, tail);
      assert.match(g["files"] ?? "", /a\.txt/, tail);
      assert.equal(g["status"], "ok", tail);
      assert.equal(g["diff"], "ok", tail);
    } finally {
      await repo.cleanup();
      await Deno.remove(state, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name: "git: an agent in its worktree reads no token, stash or staged file; status/diff work",
  ignore,
  fn: async () => {
    const repo = await createRepo({ "a.txt": "a\n" }, "true", { prefix: "vouch-rt-git-a-" });
    const scratch = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-rt-git-s-" }));
    const wt = await createWorktree({
      repo: repo.dir,
      taskId: "rt",
      attempt: 1,
      root: join(scratch, "worktrees"),
    });
    try {
      await plantSecrets(repo.dir);
      const head = (await git(wt.path, "rev-parse", "HEAD")).trim();
      await Deno.writeTextFile(join(wt.path, "a.txt"), "a\nchanged by the agent\n");
      const agentScratch = join(scratch, "agent");
      await Deno.mkdir(agentScratch);
      const sandbox = agentProfile({
        worktree: wt.path,
        scratch: agentScratch,
        bwrapPath: probe.bwrap.path!,
        home: "/nonexistent",
        // The program's dir above the repository, as a `command:` agent beside it has (as root,
        // the dirs bwrap makes inside the git view must still be open to the mapped uid).
        readOnly: [join(repo.dir, "..")],
      });
      const r = await runProcess({
        shell: PROBE + '\necho "GIT porcelain $(git status --porcelain)"',
        cwd: wt.path,
        sandbox,
        timeoutMs: 30_000,
      });
      const out = r.stdout.head + r.stderr.head;
      assert.match(out, /END/, out);
      const { leaks, git: g } = answers(out);
      assert.deepEqual(leaks, [], out);
      assert.equal(g["head"], head, out);
      assert.equal(g["porcelain"], "M a.txt", out);
      assert.equal(g["diff"], "ok", out);
      assert.equal(g["gitdir"], "ok", out);
    } finally {
      await removeWorktree(wt).catch(() => {});
      await repo.cleanup();
      await Deno.remove(scratch, { recursive: true }).catch(() => {});
    }
  },
});
