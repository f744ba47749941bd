/**
 * The Python fixtures of red team A's findings 1, 2, 7 and 8: a buggy
 * `calc.py`, its pytest or unittest test, and {@link cheatPatch}, which makes a
 * cheat, checks it really defeats the runner run directly, and returns its
 * binary patch for the real `vouch verify`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { git } from "../../golden/fixture_repos.ts";
import {
  createProject,
  type Project,
  show,
  type VerifyRun,
  vouch,
} from "../../golden/real_projects/_harness.ts";

export const CALC =
  "def add(a, b):\n    return a - b  # bug\n\n\ndef mul(a, b):\n    return a * b\n";
export const PYTEST_TEST =
  "from calc import add, mul\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n" +
  "def test_mul():\n    assert mul(2, 3) == 6\n";
export const UNITTEST_TEST = [
  "import unittest",
  "",
  "from calc import add, mul",
  "",
  "",
  "class CalcTest(unittest.TestCase):",
  "    def test_add(self):",
  "        self.assertEqual(add(2, 3), 5)",
  "",
  "    def test_mul(self):",
  "        self.assertEqual(mul(2, 3), 6)",
  "",
].join("\n");

/** pytest 9 (native TOML configs) runs here, or why not. */
/** Why pytest 9 cannot run here (its cases are then ignored), or null. */
/** The major version of `python3 -m pytest` here, or why there is none. */
const PYTEST_MAJOR: number | string = (() => {
  try {
    const out = new Deno.Command("python3", {
      args: ["-m", "pytest", "--version"],
      stdout: "piped",
      stderr: "piped",
    })
      .outputSync();
    // pytest 7 and later print the version on stdout, older ones on stderr.
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    const v = /pytest (\d+)/.exec(text);
    return out.success && v !== null ? Number(v[1]) : "pytest is not installed";
  } catch {
    return "python3 is missing";
  }
})();

/** Why the pytest cases cannot run here (no pytest), or null. */
export const PYTEST_MISSING: string | null = typeof PYTEST_MAJOR === "string" ? PYTEST_MAJOR : null;

/**
 * Why the pytest 9 cases (its native `pytest.toml`) cannot run here, or null. `.ci/run` puts
 * Debian's pytest (7) first on PATH; a machine with pytest 9 runs them too.
 */
export const PYTEST9_MISSING: string | null = PYTEST_MISSING ??
  (typeof PYTEST_MAJOR === "number" && PYTEST_MAJOR < 9
    ? `pytest ${PYTEST_MAJOR} is older than 9`
    : null);

if (PYTEST_MISSING !== null) console.log(`python cheats: pytest cases skipped: ${PYTEST_MISSING}`);
else if (PYTEST9_MISSING !== null) {
  console.log(`python cheats: the pytest.toml case skipped: ${PYTEST9_MISSING}`);
}

/** Runs `cmd` by `sh` in `dir` (no bytecode written), output dropped; its exit code. */
export async function run(dir: string, cmd: string): Promise<number> {
  const out = await new Deno.Command("sh", {
    args: ["-c", cmd],
    cwd: dir,
    env: { PYTHONDONTWRITEBYTECODE: "1" },
    stdout: "null",
    stderr: "null",
  }).output();
  return out.code;
}

/**
 * Writes `files` (and compiles `pyc`: target -> source text, unchecked-hash),
 * checks the cheat defeats `cmd` run directly, and returns the patch (forced
 * past .gitignore); the checkout is restored.
 */
export async function cheatPatch(
  p: Project,
  cmd: string,
  files: Record<string, string>,
  pyc: Record<string, string> = {},
): Promise<string> {
  assert.notEqual(await run(p.dir, cmd), 0, "the base fails");
  for (const [rel, text] of Object.entries(files)) {
    const path = `${p.dir}/${rel}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(path, text);
  }
  const written = Object.keys(files);
  for (const [target, source] of Object.entries(pyc)) {
    const src = `${p.state}/pyc-source.py`;
    await Deno.writeTextFile(src, source);
    const tag = (await new Deno.Command("python3", {
      args: ["-c", "import sys; print(sys.implementation.cache_tag)"],
      stdout: "piped",
    }).output()).stdout;
    const rel = target.replace("TAG", new TextDecoder().decode(tag).trim());
    const c = await new Deno.Command("python3", {
      args: [
        "-c",
        "import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], dfile=sys.argv[3], " +
        "invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH, doraise=True)",
        src,
        `${p.dir}/${rel}`,
        rel.replace(/__pycache__\/([^.]+)\..*$/, "$1.py"),
      ],
    }).output();
    assert.equal(c.code, 0, new TextDecoder().decode(c.stderr));
    written.push(rel);
  }
  try {
    assert.equal(await run(p.dir, cmd), 0, "the cheat defeats the runner when run directly");
    await git(p.dir, "add", "-f", "--", ...written);
    const patch = await git(p.dir, "diff", "--cached", "--binary", "HEAD");
    const file = `${p.state}/cheat.patch`;
    await Deno.writeTextFile(file, patch);
    return file;
  } finally {
    await git(p.dir, "reset", "-q", "--hard", "HEAD");
    await git(p.dir, "clean", "-fdxq");
  }
}

/** Runs `fn` with a committed project of `calc.py` and `test` at `testFile`, removed afterwards. */
export async function withPython(
  test: string,
  testFile: string,
  fn: (p: Project) => Promise<void>,
): Promise<void> {
  const p = await createProject("vouch-rt-pyshadow-", {
    "calc.py": CALC,
    [testFile]: test,
    ...(testFile.startsWith("tests/") ? { "tests/__init__.py": "" } : {}),
  }, { ignored: ["__pycache__/", ".pytest_cache/"] });
  try {
    await fn(p);
  } finally {
    await p.cleanup();
  }
}

/** `vouch verify --dir R --patch P --verify CMD`, nothing else. */
export function verify(p: Project, patch: string, cmd: string): Promise<VerifyRun> {
  return vouch(p, ["verify", "--dir", p.dir, "--patch", patch, "--verify", cmd]);
}

/** REJECTED (exit 1), vouch's own lines (not quoted output) naming each of `names`. */
export function assertRejectedNaming(r: VerifyRun, names: string[]): void {
  assert.equal(r.code, 1, `must be REJECTED (exit 1)\n${show(r)}`);
  assert.match(r.stdout, /REJECTED/, show(r));
  const words = r.stdout.split("\n").filter((l) => !/^\s*\|/.test(l)).join("\n");
  for (const n of names) assert.ok(words.includes(n), `vouch names ${n}\n${show(r)}`);
}

/** A pytest hookwrapper that reports every failed test as passed. */
export const FLIP_HOOK = [
  "@pytest.hookimpl(hookwrapper=True)",
  "def pytest_runtest_makereport(item, call):",
  "    rep = (yield).get_result()",
  "    if rep.failed:",
  '        rep.outcome, rep.longrepr = "passed", None',
  "",
].join("\n");
export const PYTEST = "python3 -m pytest";
