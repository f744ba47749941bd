/**
 * Hints where users fall, through the CLI as users run it: raw `git show`
 * output is verified with a note about its commit header; `--baseline` does
 * not print the base's failing output under VERIFIED.
 */
import assert from "node:assert/strict";
import { runVouch } from "./cli_harness.ts";
import { createRepo, type FixtureRepo, git, writeFiles } from "./fixture_repos.ts";

async function fixed(): Promise<{ repo: FixtureRepo; state: string }> {
  const repo = await createRepo({
    "add.sh": "add() { echo $(($1 - $2)); }\n",
    // A failing base prints a long trace, as pytest does.
    "test.sh": '. ./add.sh\nif [ "$(add 1 2)" != 3 ]; then for i in $(seq 1 40); do ' +
      'echo "  File \\"t.py\\", line $i, in test_add TRACE-LINE-$i"; done; exit 1; fi\n',
  }, "sh test.sh");
  await writeFiles(repo.dir, { "add.sh": "add() { echo $(($1 + $2)); }\n" });
  await git(repo.dir, "commit", "-q", "-am", "fix add");
  return { repo, state: await Deno.makeTempDir({ prefix: "vouch-hints-" }) };
}

Deno.test("a raw `git show` patch is verified, with a note that its commit header is ignored", async () => {
  const { repo, state } = await fixed();
  try {
    await Deno.writeTextFile(`${repo.dir}/../show.patch`, await git(repo.dir, "show"));
    const run = await runVouch(repo, [
      "verify",
      "--patch",
      "../show.patch",
      "--base",
      "HEAD~1",
      "--verify",
      "sh test.sh",
    ], state);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /^VERIFIED /);
    assert.match(
      run.stderr,
      /vouch: note: the patch starts with a commit header \(git show output: commit [0-9a-f]{40}, \d+ lines\); only the diff after it is verified/,
    );
    const plain = `${repo.dir}/../plain.patch`;
    await Deno.writeTextFile(plain, await git(repo.dir, "diff", "--binary", "HEAD~1"));
    const quiet = await runVouch(repo, [
      "verify",
      "--patch",
      plain,
      "--base",
      "HEAD~1",
      "--verify",
      "sh test.sh",
    ], state);
    assert.equal(quiet.code, 0);
    assert.doesNotMatch(quiet.stderr, /commit header/);
  } finally {
    await repo.cleanup();
    await Deno.remove(state, { recursive: true }).catch(() => {});
  }
});

Deno.test("--baseline under VERIFIED: one line for the failing base, not its trace", async () => {
  const { repo, state } = await fixed();
  try {
    const patch = `${repo.dir}/../fix.patch`;
    await Deno.writeTextFile(patch, await git(repo.dir, "diff", "--binary", "HEAD~1"));
    const run = await runVouch(repo, [
      "verify",
      "--patch",
      patch,
      "--base",
      "HEAD~1",
      "--verify",
      "sh test.sh",
      "--baseline",
    ], state);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /^VERIFIED /);
    assert.match(run.stdout, /^ {2}baseline \(before the patch\) failed verify \(\d+ ms\)/m);
    assert.doesNotMatch(run.stdout, /TRACE-LINE/, run.stdout);
  } finally {
    await repo.cleanup();
    await Deno.remove(state, { recursive: true }).catch(() => {});
  }
});

Deno.test("a venv's editable install pointing into the checkout: the failure says so, with the fix that works", async () => {
  const repo = await createRepo(
    {
      "src/pkg/__init__.py": "def add(a, b):\n    return a - b\n",
      "tests/test_add.py": "import unittest\nfrom pkg import add\n\nclass T(unittest.TestCase):\n" +
        "    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n",
    },
    "",
    { ignored: [".venv/"] },
  );
  const state = await Deno.makeTempDir({ prefix: "vouch-venv-" });
  try {
    const venv = await new Deno.Command("python3", {
      args: ["-m", "venv", "--without-pip", ".venv"],
      cwd: repo.dir,
    }).output();
    if (!venv.success) {
      console.log("hints_test: python3 -m venv unavailable; skipping the venv case");
      return;
    }
    // What `pip install -e .` leaves: a .pth naming the checkout's src/.
    const lib = [...Deno.readDirSync(`${repo.dir}/.venv/lib`)][0]!.name;
    await Deno.writeTextFile(
      `${repo.dir}/.venv/lib/${lib}/site-packages/__editable__.pkg-0.1.pth`,
      `${await Deno.realPath(repo.dir)}/src\n`,
    );
    await writeFiles(repo.dir, { "src/pkg/__init__.py": "def add(a, b):\n    return a + b\n" });
    const patch = `${repo.dir}/../fix.patch`;
    await Deno.writeTextFile(patch, await git(repo.dir, "diff", "--binary"));
    await git(repo.dir, "checkout", "-q", "src/pkg/__init__.py");
    const test = ".venv/bin/python -m unittest discover -s tests";
    const run = await runVouch(repo, ["verify", "--patch", patch, "--verify", test], state);
    assert.notEqual(run.code, 0, run.stdout);
    assert.match(run.stdout, /No module named 'pkg'/);
    assert.match(
      run.stdout,
      /the virtualenv's editable install \(\.venv\/lib\/python[0-9.]+\/site-packages\/__editable__\.pkg-0\.1\.pth\) points to \S+\/src, outside the clean tree/,
    );
    assert.match(run.stdout, /PYTHONPATH=src python -m pytest/);
    const fixed = await runVouch(repo, [
      "verify",
      "--patch",
      patch,
      "--verify",
      `PYTHONPATH=src ${test}`,
    ], state);
    assert.equal(fixed.code, 0, fixed.stdout + fixed.stderr);
    assert.match(fixed.stdout, /^VERIFIED /);
  } finally {
    await repo.cleanup();
    await Deno.remove(state, { recursive: true }).catch(() => {});
  }
});
