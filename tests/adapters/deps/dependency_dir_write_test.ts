/**
 * Red team rt2, finding 2: a patch that writes under an installed dependency
 * directory of the user's checkout (`venv/`, `vendor/`, `target/`,
 * `node_modules/`), the one vouch gives the clean tree, would take its place:
 * it is refused (`patch_writes_dependency_dir`). A repository that commits
 * such a directory as source is unaffected.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { join } from "node:path";
import {
  DEPENDENCY_DIR_NAMES,
  dependencyDirWrite,
  findDependencyDirs,
  planDependencies,
} from "../../../adapters/deps/dependency_plan.ts";
import { createDependencyProvisioner } from "../../../adapters/deps/provision.ts";
import { createRepo } from "../../golden/fixture_repos.ts";

Deno.test("deps: a patch writing under an installed dependency dir is refused, naming dir and file", () => {
  for (const dir of ["venv", "vendor", "target", "node_modules", ".venv", "web/node_modules"]) {
    const plan = planDependencies(["src/a.py", `${dir}/bin/python`], [dir, "other/venv"], {
      hasSetup: false,
    });
    assert.equal(plan.mode, "refuse", dir);
    if (plan.mode !== "refuse") continue;
    assert.equal(plan.code, "patch_writes_dependency_dir");
    assert.deepEqual(plan.manifests, []);
    assert.match(plan.reason, new RegExp(`writes ${dir}/bin/python under ${dir}/`));
    assert.equal(plan.reason.includes("\n"), false, "one line");
  }
  // The directory itself (a symlink the patch adds in its place) counts too.
  assert.equal(planDependencies(["venv"], ["venv"], { hasSetup: false }).mode, "refuse");
  // `written` beyond `changed` (a config-only manifest left out of `changed`).
  const w = planDependencies(["src/a.js"], ["node_modules"], {
    hasSetup: false,
    written: ["src/a.js", "node_modules/x/package.json"],
  });
  assert.equal(w.mode === "refuse" && w.code, "patch_writes_dependency_dir");
  // A manifest change is refused first with its own code and fix.
  const m = planDependencies(["package.json", "node_modules/x/index.js"], ["node_modules"], {
    hasSetup: false,
  });
  assert.equal(m.mode === "refuse" && m.code, "dependency_change_needs_setup");
  // With setup nothing is provided: not this refusal.
  assert.equal(planDependencies(["venv/bin/python"], ["venv"], { hasSetup: true }).mode, "setup");
});

Deno.test("deps: near names and dirs the checkout does not have installed are not dependency writes", () => {
  const installed = ["venv", "web/node_modules"];
  for (
    const path of [
      "venvs/x.py",
      "venv.py",
      "src/venv/x.py",
      "web/node_modules.md",
      "node_modules/x.js", // no top-level node_modules installed here
      "vendor/lib.go",
    ]
  ) {
    assert.equal(dependencyDirWrite([path], installed), null, path);
    assert.equal(planDependencies([path], installed, { hasSetup: false }).mode, "copy", path);
  }
  assert.equal(dependencyDirWrite(["venv/bin/python"], []), null);
});

const seg = fc.stringMatching(/^[a-z][a-z0-9_.-]{0,6}$/).filter((s) => s !== "." && s !== "..");

Deno.test("property: refused exactly when some written path is an installed dir or below one", () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.tuple(fc.array(seg, { maxLength: 2 }), fc.constantFrom(...DEPENDENCY_DIR_NAMES)),
        {
          maxLength: 3,
        },
      ).map((ds) => ds.map(([pre, n]) => [...pre, n].join("/"))),
      fc.array(
        fc.array(fc.oneof(seg, fc.constantFrom(...DEPENDENCY_DIR_NAMES)), {
          minLength: 1,
          maxLength: 4,
        }).map((s) => s.join("/")),
        { maxLength: 6 },
      ),
      (installed, written) => {
        const under = written.some((p) => installed.some((d) => p === d || p.startsWith(d + "/")));
        const plan = planDependencies(written, installed, { hasSetup: false });
        const manifestsFirst = plan.mode === "refuse" &&
          plan.code === "dependency_change_needs_setup";
        if (manifestsFirst) return;
        assert.equal(plan.mode === "refuse", under, `${installed} ${written}`);
        const hit = dependencyDirWrite(written, installed);
        assert.equal(hit !== null, under);
        if (hit !== null) assert.ok(hit.path === hit.dir || hit.path.startsWith(hit.dir + "/"));
      },
    ),
  );
});

Deno.test("deps: a committed venv/ or vendor/ (also with untracked files inside) is no installed dir; edits to it are source", async () => {
  const repo = await createRepo(
    {
      "venv/activate_helper.py": "X = 1\n",
      "vendor/lib/lib.go": "package lib\n",
      "calc.py": "1\n",
    },
    "true",
    { ignored: ["__pycache__/", ".cache/"] },
  );
  try {
    for (const d of ["venv/__pycache__", "vendor/lib/.cache", "vendor/new"]) {
      await Deno.mkdir(join(repo.dir, d), { recursive: true });
      await Deno.writeTextFile(join(repo.dir, d, "f"), "x");
    }
    const installed = await findDependencyDirs(repo.dir);
    assert.deepEqual(installed, []);
    const p = createDependencyProvisioner({ repo: repo.dir, hasSetup: false });
    const got = await p.provide(repo.dir, ["venv/activate_helper.py", "vendor/lib/lib.go"]);
    assert.equal(got.ok, true);
  } finally {
    await repo.cleanup();
  }
});

Deno.test("deps: the provisioner refuses a patch writing under the checkout's ignored venv/", async () => {
  const repo = await createRepo({ "calc.py": "1\n" }, "true", { ignored: ["venv/"] });
  const tree = await Deno.makeTempDir({ prefix: "vouch-deps-tree-" });
  try {
    await Deno.mkdir(join(repo.dir, "venv/bin"), { recursive: true });
    await Deno.writeTextFile(join(repo.dir, "venv/bin/python"), "#!/bin/sh\n");
    await Deno.mkdir(join(tree, "venv/bin"), { recursive: true });
    await Deno.writeTextFile(join(tree, "venv/bin/python"), "#!/bin/sh\n# the patch's\n");
    for (const views of [false, true]) {
      const p = createDependencyProvisioner({ repo: repo.dir, hasSetup: false, views });
      const got = await p.provide(tree, ["calc.py", "venv/bin/python"]);
      assert.equal(got.ok, false);
      if (!got.ok) {
        assert.equal(got.code, "patch_writes_dependency_dir");
        assert.match(got.reason, /venv\/bin\/python under venv\//);
      }
      assert.equal((await p.provide(join(tree, "none"), ["calc.py"])).ok, true);
    }
  } finally {
    await repo.cleanup();
    await Deno.remove(tree, { recursive: true });
  }
});
