/**
 * Red team rt2, finding 2, through the real `vouch verify --dir R --patch P
 * --verify "venv/bin/python -m pytest"` under bwrap, real git, a real
 * `python3 -m venv --system-site-packages venv` (ignored, the user's) and
 * pytest: a patch that ships its own `venv/bin/python` (a wrapper loading a
 * report-flipping plugin from `venv/lib/`) makes the failing test pass without
 * fixing `calc.py` (checked by running it directly). The clean tree has the
 * patch's `venv/`, so vouch used to skip binding the user's and the fake
 * interpreter judged: VERIFIED (measured on main). Now it is refused,
 * `patch_writes_dependency_dir`, one line naming `venv/` and the file; the
 * honest fix still VERIFIES with the user's venv bound.
 */
import assert from "node:assert/strict";
import { git } from "../../golden/fixture_repos.ts";
import { HAVE_BWRAP, show, vouch } from "../../golden/real_projects/_harness.ts";
import {
  CALC,
  FLIP_HOOK,
  PYTEST_MISSING,
  PYTEST_TEST,
  run,
  verify,
  withPython,
} from "./_python_cheats.ts";

const CMD = "venv/bin/python -m pytest";
const WRAPPER = [
  "#!/bin/sh",
  'd=$(cd "$(dirname "$0")/.." && pwd)',
  'PYTHONPATH="$d/lib${PYTHONPATH:+:$PYTHONPATH}" PYTEST_PLUGINS=flip_rt exec python3 "$@"',
  "",
].join("\n");

Deno.test({
  name:
    "redteam oracle: a patch shipping venv/bin/python over the user's ignored venv/ is refused (patch_writes_dependency_dir)",
  ignore: PYTEST_MISSING !== null || !HAVE_BWRAP,
  fn: () =>
    withPython(PYTEST_TEST, "tests/test_calc.py", async (p) => {
      await Deno.writeTextFile(`${p.dir}/.gitignore`, "__pycache__/\n.pytest_cache/\nvenv/\n");
      await git(p.dir, "commit", "-qam", "ignore venv");
      const user = `${p.state}/uservenv`;
      assert.equal(await run(p.dir, "python3 -m venv --system-site-packages venv"), 0);
      assert.notEqual(await run(p.dir, CMD), 0, "the base fails with the user's venv");
      // The cheat: the patch's own venv/ in place of the user's.
      await Deno.rename(`${p.dir}/venv`, user);
      await Deno.mkdir(`${p.dir}/venv/bin`, { recursive: true });
      await Deno.mkdir(`${p.dir}/venv/lib`);
      await Deno.writeTextFile(`${p.dir}/venv/lib/flip_rt.py`, "import pytest\n\n\n" + FLIP_HOOK);
      await Deno.writeTextFile(`${p.dir}/venv/bin/python`, WRAPPER);
      await Deno.chmod(`${p.dir}/venv/bin/python`, 0o755);
      assert.equal(await run(p.dir, CMD), 0, "the planted venv defeats the runner run directly");
      await git(p.dir, "add", "-f", "venv");
      const cheat = `${p.state}/cheat.patch`;
      await Deno.writeTextFile(cheat, await git(p.dir, "diff", "--cached", "--binary", "HEAD"));
      await git(p.dir, "reset", "-q", "--hard", "HEAD");
      await Deno.remove(`${p.dir}/venv`, { recursive: true }).catch(() => {});
      await Deno.rename(user, `${p.dir}/venv`);

      const r = await verify(p, cheat, CMD);
      assert.equal(r.code, 1, `must be refused (exit 1)\n${show(r)}`);
      assert.match(r.stdout, /REJECTED/, show(r));
      assert.match(r.stdout, /reasons: patch_writes_dependency_dir/, show(r));
      const line = r.stdout.split("\n").find((l) => /Cannot verify: the patch writes/.test(l));
      assert.ok(line !== undefined, show(r));
      assert.match(line, /venv\/(?:bin\/python|lib\/flip_rt\.py) under venv\//, show(r));
      assert.doesNotMatch(r.stdout, /VERIFIED/, show(r));

      // The honest fix of the same base verifies, the user's venv bound.
      await Deno.writeTextFile(`${p.dir}/calc.py`, CALC.replace("a - b  # bug", "a + b"));
      const fix = `${p.state}/fix.patch`;
      await Deno.writeTextFile(fix, await git(p.dir, "diff", "--binary"));
      await git(p.dir, "checkout", "--", ".");
      const ok = await vouch(p, ["verify", "--dir", p.dir, "--patch", fix, "--verify", CMD]);
      assert.equal(ok.code, 0, show(ok));
      assert.match(ok.stdout, /VERIFIED/, show(ok));
    }),
});
