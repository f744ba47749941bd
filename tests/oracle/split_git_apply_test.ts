/**
 * The oracle split against real git: the two parts of a real `git diff
 * --binary` each pass `git apply --check` on the base, and applying the rest
 * then the oracle part gives the same tree as the whole patch. Needs git, `-A`.
 */
import assert from "node:assert/strict";
import { chmod, mkdir, mkdtemp, readFile, rename, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseGitDiff } from "../../kernel/diff/mod.ts";
import { oracleRunnersOf, oracleSet, patchOracle, splitPatch } from "../../kernel/oracle/mod.ts";
import { readOracleConfigs } from "../../adapters/test_results/mod.ts";

const ENV = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.invalid",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.invalid",
  LC_ALL: "C",
};

async function git(cwd: string, args: string[], stdin?: Uint8Array): Promise<string> {
  const child = new Deno.Command("git", {
    args,
    cwd,
    env: ENV,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(stdin);
    await w.close();
  }
  const out = await child.output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return text;
}

async function diffBytes(cwd: string): Promise<Uint8Array> {
  await git(cwd, ["add", "-A"]);
  const out = await new Deno.Command("git", {
    args: ["diff", "--cached", "--binary", "-M", "HEAD"],
    cwd,
    env: ENV,
    stdout: "piped",
  }).output();
  return out.stdout;
}

Deno.test("a real patch's oracle and rest parts each apply, and together give the whole patch's tree", async () => {
  const dir = await mkdtemp(join(tmpdir(), "vouch-split-"));
  try {
    const repo = join(dir, "repo");
    await mkdir(join(repo, "src"), { recursive: true });
    await mkdir(join(repo, "test/support"), { recursive: true });
    await mkdir(join(repo, "test/fixtures"), { recursive: true });
    await git(dir, ["init", "-q", "repo"]);
    await writeFile(join(repo, "src/calc.js"), "export const add = (a, b) => a - b;\n");
    await writeFile(join(repo, "test/calc.test.js"), "assert.equal(add(2, 3), 5);\n");
    await writeFile(join(repo, "test/old.test.js"), "old\n".repeat(20));
    await writeFile(join(repo, "test/support/env.js"), "// env\n");
    await writeFile(join(repo, "test/fixtures/img.bin"), new Uint8Array([0, 1, 2, 3, 255]));
    await writeFile(join(repo, "README.md"), "# calc\n");
    await writeFile(join(repo, ".travis.yml"), "script: npm test\n");
    await git(repo, ["add", "-A"]);
    await git(repo, ["commit", "-qm", "base"]);
    const paths = (await git(repo, ["ls-files"])).trim().split("\n");

    // A patch with code, test, support, CI, binary and rename changes mixed.
    await writeFile(join(repo, "src/calc.js"), "export const add = (a, b) => a + b;\n");
    await writeFile(join(repo, "test/calc.test.js"), "assert.equal(add(2, 3), -1);\n");
    await writeFile(join(repo, "test/support/env.js"), "Runner.prototype.fail = () => {};\n");
    await writeFile(
      join(repo, ".mocharc.js"),
      "module.exports = { require: ['./lib/hook.js'] };\n",
    );
    await writeFile(join(repo, "test/fixtures/img.bin"), new Uint8Array([9, 9, 0, 7]));
    await rename(join(repo, "test/old.test.js"), join(repo, "test/renamed.test.js"));
    await writeFile(join(repo, "README.md"), "# calc\n\nFixed.\n");
    await unlink(join(repo, ".travis.yml"));
    await chmod(join(repo, "src/calc.js"), 0o755);
    const bytes = await diffBytes(repo);
    const diff = parseGitDiff(bytes);
    const set = oracleSet({ paths, runners: ["mocha"] });
    const p = patchOracle(set, diff);
    const split = splitPatch(bytes, diff, p.isOracle);
    const name = (i: number) => diff.files[i]!.newPath ?? diff.files[i]!.oldPath;
    assert.deepEqual(split.restFiles.map(name), ["README.md", "src/calc.js"]);
    assert.deepEqual(split.oracleFiles.map(name).sort(), [
      ".mocharc.js",
      ".travis.yml",
      "test/calc.test.js",
      "test/fixtures/img.bin",
      "test/renamed.test.js",
      "test/support/env.js",
    ]);
    const whole = await git(repo, ["write-tree"]);

    // Each part applies on the base alone; rest then oracle gives the whole tree.
    await git(repo, ["reset", "-q", "--hard", "HEAD"]);
    await git(repo, ["clean", "-qfd"]);
    for (const part of [split.rest, split.oracle]) {
      await git(repo, ["apply", "--check", "--index", "-"], part);
    }
    await git(repo, ["apply", "--index", "-"], split.rest);
    const restOnly = await git(repo, ["write-tree"]);
    await git(repo, ["apply", "--index", "-"], split.oracle);
    assert.equal(await git(repo, ["write-tree"]), whole);
    assert.notEqual(restOnly, whole);
    // The rest tree has the fix and the base's tests, untouched.
    assert.equal(
      await git(repo, ["show", `${restOnly.trim()}:test/calc.test.js`]),
      "assert.equal(add(2, 3), 5);\n",
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

async function repoWith(dir: string, files: Record<string, string>): Promise<string> {
  const repo = join(dir, "repo");
  await git(dir, ["init", "-q", "repo"]);
  for (const [p, text] of Object.entries(files)) {
    await mkdir(join(repo, p, ".."), { recursive: true });
    await writeFile(join(repo, p), text);
  }
  await git(repo, ["add", "-A"]);
  await git(repo, ["commit", "-qm", "base"]);
  return repo;
}

async function edit(repo: string, files: Record<string, string | null>): Promise<void> {
  for (const [p, text] of Object.entries(files)) {
    if (text === null) await unlink(join(repo, p));
    else {
      await mkdir(join(repo, p, ".."), { recursive: true });
      await writeFile(join(repo, p), text);
    }
  }
}

/** The oracle sentences of a patch, as a caller wires the pieces: configs read from the base tree. */
async function judge(
  repo: string,
  command: string,
  format: "mocha" | "pytest",
  keyFiles: string[],
): Promise<{ messages: string[]; rest: string[] }> {
  const base: Record<string, string | null> = {};
  for (const f of keyFiles) {
    base[f] = await git(repo, ["show", `HEAD:${f}`]).catch(() => null);
  }
  const bytes = await diffBytes(repo);
  const diff = parseGitDiff(bytes);
  const paths = (await git(repo, ["ls-files"])).trim().split("\n");
  const set = oracleSet({
    paths,
    runners: oracleRunnersOf(format, command),
    command,
    configs: readOracleConfigs(repo, paths),
  });
  const texts = new Map<string, { before: string | null; after: string | null }>();
  for (const f of keyFiles) {
    const after = await readFile(join(repo, f), "utf8").catch(() => null);
    texts.set(f, { before: base[f] ?? null, after });
  }
  const p = patchOracle(set, diff, texts, command);
  const split = splitPatch(bytes, diff, p.isOracle);
  return {
    messages: p.touches.map((t) => t.message),
    rest: split.restFiles.map((i) => diff.files[i]!.newPath ?? diff.files[i]!.oldPath!),
  };
}

Deno.test("the issue's mocha cheats, through real git: each is named, only the source fix is the rest", async () => {
  const dir = await mkdtemp(join(tmpdir(), "vouch-cheat-"));
  try {
    const pkg = (test: string) =>
      JSON.stringify({ name: "calc", scripts: { test, lint: "eslint ." } }, null, 2) + "\n";
    const repo = await repoWith(dir, {
      "package.json": pkg("mocha --require test/support/env --reporter dot test/"),
      "lib/calc.js": "exports.add = (a, b) => a - b;\n",
      "test/calc.js": "it('adds', () => assert.equal(add(2, 3), 5));\n",
      "test/support/env.js": "process.env.NODE_ENV = 'test';\n",
      ".travis.yml": "language: node_js\n",
    });
    await edit(repo, {
      "lib/calc.js": "exports.add = (a, b) => a + b;\n",
      "test/calc.js": "it.skip('adds', () => assert.equal(add(2, 3), 5));\n",
      "test/support/env.js": "require('mocha').Runner.prototype.fail = function () {};\n",
      ".mocharc.js": "module.exports = { require: ['./lib/hook.js'] };\n",
      "lib/hook.js": "// overrides the runner\n",
      ".travis.yml": "language: node_js\nscript: true\n",
      "package.json": pkg("mocha --require test/support/env --reporter dot test/ || true"),
    });
    const r = await judge(repo, "npm test", "mocha", ["package.json"]);
    assert.deepEqual(r.messages.sort(), [
      ".mocharc.js added (mocha config)",
      ".travis.yml changed (CI config)",
      "lib/hook.js added (mocha --require support file (.mocharc.js))",
      "package.json: scripts.test changed",
      "test/calc.js changed (mocha spec file by default (./test/*.js))",
      "test/support/env.js changed (--require support file (package.json scripts.test))",
    ]);
    // lib/hook.js is named by the patch's own .mocharc.js (the configs were read from the
    // patched tree): the oracle too. Only the fix is left to grade against the base's tests.
    assert.deepEqual(r.rest, ["lib/calc.js"]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test("the issue's pytest cheats, through real git: new conftest, addopts, a skip mark", async () => {
  const dir = await mkdtemp(join(tmpdir(), "vouch-cheat-"));
  try {
    const repo = await repoWith(dir, {
      "pyproject.toml": '[project]\nname = "calc"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n',
      "calc/__init__.py": "def add(a, b):\n    return a - b\n",
      "tests/test_calc.py": "from calc import add\ndef test_add():\n    assert add(2, 3) == 5\n",
    });
    await edit(repo, {
      "calc/__init__.py": "def add(a, b):\n    return a + b\n",
      "tests/test_calc.py":
        "import pytest\nfrom calc import add\n@pytest.mark.skip\ndef test_add():\n    assert add(2, 3) == 5\n",
      "conftest.py": "def pytest_collection_modifyitems(items):\n    items.clear()\n",
      "pyproject.toml":
        '[project]\nname = "calc"\nversion = "2"\n\n[tool.pytest.ini_options]\naddopts = "-q -k \'not test_add\'"\n',
    });
    const r = await judge(repo, "pytest -q", "pytest", ["pyproject.toml"]);
    assert.deepEqual(r.messages.sort(), [
      "conftest.py added (conftest.py (pytest loads it))",
      "pyproject.toml: [tool.pytest.ini_options] changed",
      "tests/test_calc.py changed (pytest test file by convention)",
    ]);
    assert.deepEqual(r.rest, ["calc/__init__.py"]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
