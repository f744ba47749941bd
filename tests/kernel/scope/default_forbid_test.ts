/**
 * Red team A, findings 3, 5, 7, 8, 9: the default forbidden globs refuse any
 * path under a `node_modules/` directory at any depth and any Python bytecode
 * (`__pycache__/`, `*.pyc`, `*.pyo`), each with its reason; plain source is
 * not refused.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { judgePatch } from "../../../kernel/scope/judge_patch.ts";
import { checkScope } from "../../../kernel/scope/check_scope.ts";
import { parseGitDiff } from "../../../kernel/diff/parse.ts";
import { DEFAULT_FORBID_RULES, defaultForbidReason } from "../../../kernel/scope/default_forbid.ts";
import { confinePath } from "../../../kernel/paths/mod.ts";
import { AUTOMATION_CONFIG_GLOBS } from "../../../kernel/oracle/oracle_set.ts";

const GLOBS = DEFAULT_FORBID_RULES.map((r) => r.glob);

function added(path: string): Uint8Array {
  return new TextEncoder().encode(
    `diff --git a/${path} b/${path}\nnew file mode 100644\n--- /dev/null\n+++ b/${path}\n@@ -0,0 +1 @@\n+x\n`,
  );
}

const forbidden = (path: string) =>
  checkScope(parseGitDiff(added(path)), { forbid: GLOBS }).violations.some((v) =>
    v.code === "forbidden"
  );

Deno.test("node_modules at any depth and Python bytecode are forbidden by default, with reasons", () => {
  for (
    const path of [
      "node_modules/.bin/mocha",
      "node_modules/.bin/node",
      "node_modules/.hook.js",
      "src/node_modules/chai/index.js",
      ".venv/bin/pytest",
      "calc.cpython-311-x86_64-linux-gnu.so",
      "pkg/calc.so",
      "calc.pyd",
      "svc/.venv/lib/python3.11/site-packages/pytest.py",
      "a/b/node_modules/x/package.json",
      "NODE_MODULES/x.js", // folded, as every forbid glob
      "__pycache__/calc.cpython-311.pyc",
      "pkg/__pycache__/test_calc.cpython-312.pyc",
      "calc.pyc",
      "pkg/calc.pyo",
      "__pycache__/notes.txt",
    ]
  ) {
    assert.ok(forbidden(path), path);
    const j = judgePatch(added(path), { forbid: GLOBS });
    assert.equal(j.verdict, "reject", path);
    assert.ok(j.reasons.includes("forbidden"), `${path}: ${j.reasons}`);
  }
  for (
    const path of [
      "src/calc.js",
      "src/node_modules.js",
      "docs/node_modules.md",
      "lib/my_node_modules/x.js",
      "calc.py",
      "pkg/pycache/x.py",
      "calc.pyi",
      "calc.pyx",
      "README.md",
    ]
  ) {
    assert.ok(!forbidden(path), path);
  }
  assert.match(defaultForbidReason("**/node_modules/**")!, /installed dependencies/);
  for (const g of ["**/__pycache__/**", "*.pyc", "*.pyo"]) {
    assert.match(defaultForbidReason(g)!, /^Python bytecode/, g);
  }
  for (const g of AUTOMATION_CONFIG_GLOBS) {
    assert.match(defaultForbidReason(g)!, /CI or git-hook configuration/, g);
  }
  assert.equal(defaultForbidReason("dist/**"), null);
  assert.equal(new Set(GLOBS).size, GLOBS.length, "each glob once");
});

/** A path component confinement accepts (so the forbid globs are what decides). */
const seg = fc.stringMatching(/^[a-zA-Z0-9_][a-zA-Z0-9_.-]{0,7}$/).filter((s) =>
  confinePath(s).ok && !s.endsWith(".")
);
const segs = fc.array(seg, { minLength: 0, maxLength: 3 });

Deno.test("property: a path with a node_modules or __pycache__ component is always forbidden", () => {
  fc.assert(
    fc.property(
      segs,
      fc.constantFrom("node_modules", "__pycache__"),
      fc.array(seg, { minLength: 1, maxLength: 3 }),
      (before, dir, after) => {
        const path = [...before, dir, ...after].join("/");
        assert.ok(forbidden(path), path);
      },
    ),
  );
});

Deno.test("property: a .pyc/.pyo file is forbidden at any depth; other names are not by these rules", () => {
  fc.assert(
    fc.property(segs, seg, fc.constantFrom(".pyc", ".pyo", ".PYC"), (dirs, base, ext) => {
      assert.ok(forbidden([...dirs, base + ext].join("/")));
    }),
  );
  const only = ["**/node_modules/**", "**/__pycache__/**", "*.pyc", "*.pyo"];
  fc.assert(
    fc.property(
      fc.array(seg.filter((s) => !/^(?:node_modules|__pycache__)$/i.test(s)), {
        minLength: 1,
        maxLength: 4,
      }).filter((p) => !/\.py[co]$/i.test(p.at(-1)!)),
      (parts) => {
        const path = parts.join("/");
        const v = checkScope(parseGitDiff(added(path)), { forbid: only }).violations;
        assert.ok(!v.some((x) => x.code === "forbidden"), path);
      },
    ),
  );
});
