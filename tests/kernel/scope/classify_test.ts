import assert from "node:assert/strict";
import fc from "fast-check";
import { classifyFile, classifyPatch, classifyPath } from "../../../kernel/scope/classify.ts";

Deno.test("classifyPath: every sensitive class by name", () => {
  const cases: [string, string[]][] = [
    [".github/workflows/ci.yml", ["ci_workflow"]],
    [".gitlab-ci.yml", ["ci_workflow"]],
    ["ci/Jenkinsfile", ["ci_workflow"]],
    ["package.json", ["dependency_manifest"]],
    ["web/requirements-dev.txt", ["dependency_manifest"]],
    ["Cargo.toml", ["dependency_manifest"]],
    ["package-lock.json", ["lockfile"]],
    ["go.sum", ["lockfile"]],
    ["deno.lock", ["lockfile"]],
    [".env", ["secrets"]],
    ["config/.env.production", ["secrets"]],
    ["deploy/server.pem", ["secrets"]],
    ["home/.ssh/config", ["secrets"]],
    ["src/math.ts", []],
    ["README.md", []],
    ["docs/package.md", []],
  ];
  for (const [path, expected] of cases) assert.deepEqual(classifyPath(path), expected, path);
});

Deno.test("classifyFile: executables and symlinks come from modes, both paths count", () => {
  assert.deepEqual(
    classifyFile({ oldPath: null, newPath: "run.sh", newMode: "100755", isSymlink: false }),
    ["executable"],
  );
  assert.deepEqual(
    classifyFile({ oldPath: null, newPath: "link", newMode: "120000", isSymlink: true }),
    ["symlink"],
  );
  assert.deepEqual(
    classifyFile({
      oldPath: ".github/workflows/a.yml",
      newPath: "a.yml",
      newMode: null,
      isSymlink: false,
    }),
    ["ci_workflow"],
  );
});

Deno.test("classifyPatch: union in a fixed order, never throws on arbitrary paths", () => {
  const c = classifyPatch([
    { oldPath: null, newPath: "yarn.lock", newMode: "100644", isSymlink: false },
    { oldPath: null, newPath: ".github/workflows/x.yml", newMode: "100755", isSymlink: false },
  ]);
  assert.deepEqual(c.sensitive, ["ci_workflow", "lockfile", "executable"]);
  fc.assert(
    fc.property(fc.option(fc.string()), fc.option(fc.string()), fc.boolean(), (a, b, link) => {
      const r = classifyPatch([{ oldPath: a, newPath: b, newMode: null, isSymlink: link }]);
      assert.equal(r.files.length, 1);
      assert.equal(r.sensitive.includes("symlink"), link);
    }),
    { numRuns: 200 },
  );
});
