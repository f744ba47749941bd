import assert from "node:assert/strict";
import fc from "fast-check";
import type { DiffFile, GitDiff } from "../../../kernel/diff/types.ts";
import {
  checkScope,
  compileScopeRules,
  judgePatch,
  type PatchViolation,
  SCOPE_VIOLATION_CODES,
  type ScopeFileSummary,
  type ScopeRules,
} from "../../../kernel/scope/mod.ts";

const enc = new TextEncoder();

interface Scoped {
  readonly verdict: "accept" | "reject";
  readonly files: readonly ScopeFileSummary[];
  readonly violations: readonly PatchViolation[];
}

/** The scope part of `judgePatch` alone (no policy, empty allowed), as `checkScope` reports it. */
function scope(patch: string, rules: ScopeRules = {}): Scoped {
  const j = judgePatch(enc.encode(patch), rules, { policy: null, allowEmpty: true });
  return { verdict: j.scope, files: j.summaries, violations: j.violations };
}

function codes(report: Scoped): string[] {
  return report.violations.map((v) => `${v.code}:${v.path}`);
}

const add = (path: string, mode = "100644", body = "+x\n") =>
  `diff --git a/${path} b/${path}\nnew file mode ${mode}\nindex 0000000..1111111\n--- /dev/null\n+++ b/${path}\n@@ -0,0 +1 @@\n${body}`;
const del = (path: string, mode = "100644") =>
  `diff --git a/${path} b/${path}\ndeleted file mode ${mode}\nindex 1111111..0000000\n--- a/${path}\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n`;
const mod = (path: string) =>
  `diff --git a/${path} b/${path}\nindex 1111111..2222222 100644\n--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-x\n+y\n`;
const rename = (from: string, to: string) =>
  `diff --git a/${from} b/${to}\nsimilarity index 100%\nrename from ${from}\nrename to ${to}\n`;
const copy = (from: string, to: string) =>
  `diff --git a/${from} b/${to}\nsimilarity index 100%\ncopy from ${from}\ncopy to ${to}\n`;
const link = (path: string, target: string) =>
  add(path, "120000", `+${target}\n\\ No newline at end of file\n`);

Deno.test("an in-scope patch is accepted, with file summaries", () => {
  const report = scope(add("src/a.ts") + mod("src/b.ts"), {
    allow: ["src/"],
    forbid: [".github/"],
  });
  assert.deepEqual(report.violations, []);
  assert.equal(report.verdict, "accept");
  assert.deepEqual(report.files[0], {
    oldPath: null,
    newPath: "src/a.ts",
    status: "added",
    additions: 1,
    deletions: 0,
    binary: false,
    oldMode: null,
    newMode: "100644",
  });
  assert.equal(report.files[1]!.status, "modified");
});

Deno.test("every violation is reported, not just the first", () => {
  const report = scope(
    add("src/ok.ts") + add(".github/workflows/x.yml") + add("lib/x.ts") + mod("README.md"),
    { allow: ["src/**", ".github/"], forbid: [".github/"], write: ["src/"] },
  );
  assert.deepEqual(codes(report), [
    "forbidden:.github/workflows/x.yml",
    "not_writable:.github/workflows/x.yml",
    "outside_allowed:lib/x.ts",
    "not_writable:lib/x.ts",
    "outside_allowed:README.md",
    "not_writable:README.md",
  ]);
  assert.equal(report.verdict, "reject");
});

Deno.test("forbidden globs match the folded form: case, NFD, ignorables", () => {
  const rules = { forbid: [".github/**", "secrets/"] };
  for (const path of [".GitHub/workflows/x", ".git\u200chub/x", "SECRETS/key", "a/Secrets/k"]) {
    assert.deepEqual(codes(scope(add(path), rules)), [`forbidden:${path}`], path);
  }
  assert.deepEqual(codes(scope(add("caf\u00e9/x"), { forbid: ["cafe\u0301/"] })), [
    "forbidden:caf\u00e9/x",
  ]);
});

Deno.test("confinement failures carry the confinePath code, for every name slot", () => {
  assert.deepEqual(codes(scope(add("a/../../z"))), ["dotdot_component:a/../../z"]);
  assert.deepEqual(codes(scope(rename("x", ".git/hooks/post-checkout"))), [
    "dot_git:.git/hooks/post-checkout",
  ]);
  assert.deepEqual(codes(scope(rename("../up", "x"))), ["dotdot_component:../up"]);
  assert.deepEqual(codes(scope(copy("x", "CON.txt"))), ["device_name:CON.txt"]);
  assert.deepEqual(codes(scope(del("GIT~1/config"))), ["dot_git:GIT~1/config"]);
});

Deno.test("a copy's source is read, not written; a rename's source is written", () => {
  const rules = { write: ["dst/"] };
  assert.deepEqual(codes(scope(copy("src/a", "dst/a"), rules)), []);
  assert.deepEqual(codes(scope(rename("src/a", "dst/a"), rules)), ["not_writable:src/a"]);
});

Deno.test("collisions after case-folding and NFC are rejected", () => {
  assert.deepEqual(codes(scope(add("README") + add("readme"))), ["path_collision:readme"]);
  assert.deepEqual(codes(scope(add("caf\u00e9") + add("cafe\u0301"))), [
    "path_collision:cafe\u0301",
  ]);
  assert.deepEqual(codes(scope(add("Dir/a") + add("dir/b"))), ["path_collision:dir/b"]);
  assert.deepEqual(codes(scope(add("a/x") + add("a/y"))), []);
});

Deno.test("symlink created, or renamed, then a write beneath it", () => {
  assert.deepEqual(codes(scope(link("tmp", "..") + add("tmp/foo"))), [
    "symlink_then_write:tmp/foo",
  ]);
  assert.deepEqual(codes(scope(rename("link", "renamed") + add("renamed/x"))), [
    "symlink_then_write:renamed/x",
  ]);
  assert.deepEqual(codes(scope(link("Tmp", "/etc") + add("tmp/foo"))), [
    "symlink_then_write:tmp/foo",
    "path_collision:tmp/foo",
  ]);
  // Deleting a symlink and creating a directory in its place is fine (as in git).
  assert.deepEqual(codes(scope(del("tmp", "120000") + add("tmp/foo"))), []);
  // A regular file that stays a file cannot have children.
  assert.deepEqual(codes(scope(mod("f") + add("f/g"))), ["file_directory_conflict:f/g"]);
});

Deno.test("symlinked .gitmodules, gitlinks, symlink policy", () => {
  assert.deepEqual(codes(scope(link(".gitmodules", "x"))), ["symlinked_gitmodules:.gitmodules"]);
  assert.deepEqual(codes(scope(link("sub/.GitModules", "x"))), [
    "symlinked_gitmodules:sub/.GitModules",
  ]);
  const gitlink =
    "diff --git a/sub b/sub\nnew file mode 160000\nindex 0000000..1111111\n--- /dev/null\n+++ b/sub\n@@ -0,0 +1 @@\n+Subproject commit 1111111111111111111111111111111111111111\n";
  assert.deepEqual(codes(scope(gitlink)), ["gitlink:sub"]);
  assert.deepEqual(codes(scope(link("l", "x"), { rejectSymlinks: true })), ["symlink:l"]);
  assert.deepEqual(codes(scope(link("l", "x"))), []);
});

Deno.test("a binary change without its data (`Binary files ... differ`) is rejected", () => {
  const differ = (path: string, header: string, names: string) =>
    `diff --git a/${path} b/${path}\n${header}Binary files ${names} differ\n`;
  const changed = differ("img.png", "index 1111111..2222222 100644\n", "a/img.png and b/img.png");
  const added = differ(
    "new.bin",
    "new file mode 100644\nindex 0000000..1111111\n",
    "/dev/null and b/new.bin",
  );
  const deleted = differ(
    "old.bin",
    "deleted file mode 100644\nindex 1111111..0000000\n",
    "a/old.bin and /dev/null",
  );
  const report = scope(mod("src/a.ts") + changed + added + deleted, { allow: ["**"] });
  assert.equal(report.verdict, "reject");
  assert.deepEqual(codes(report), [
    "binary_without_data:img.png",
    "binary_without_data:new.bin",
    "binary_without_data:old.bin",
  ]);
  assert.equal(SCOPE_VIOLATION_CODES.binaryWithoutData, "binary_without_data");
  // A binary change that carries its data (`GIT binary patch`) is not this violation.
  const literal = "diff --git a/x.bin b/x.bin\nnew file mode 100644\n" +
    "index 0000000000000000000000000000000000000000..bdc955b7b2e610ad5a72302b139a2e6cb325519a\n" +
    "GIT binary patch\nliteral 2\nJcmZQz1ONa700IC2\n\nliteral 0\nHcmV?d00001\n\n";
  const ok = scope(literal);
  assert.deepEqual(ok.violations, []);
  assert.equal(ok.files[0]!.binary, true);
});

Deno.test("an unparsable patch is a rejection with the parser's code and line", () => {
  const report = scope("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1 @@\n-a\n+b\n");
  assert.equal(report.verdict, "reject");
  assert.equal(report.violations.length, 1);
  assert.equal(report.violations[0]!.code, "unparsable_patch");
  assert.match(report.violations[0]!.detail, /^[a-z_]+ at line \d+: /);
});

Deno.test("duplicate targets are rejected", () => {
  assert.deepEqual(codes(scope(add("a") + add("a"))).includes("duplicate_path:a"), true);
});

Deno.test("violation codes are distinct stable strings", () => {
  const values = Object.values(SCOPE_VIOLATION_CODES);
  assert.equal(new Set(values).size, values.length);
});

const NAMES = ["a", "b", "A", ".git", "..", "x/y", "X/y", "caf\u00e9", "cafe\u0301", "c:d", "t"];
const MODES = [null, "100644", "100755", "120000", "160000"];
const STATUSES = ["added", "deleted", "modified", "renamed", "copied", "mode-only"] as const;
const fileArb = fc.record({
  status: fc.constantFrom(...STATUSES),
  oldPath: fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 3 }).map((p) =>
    p.join("/")
  ),
  newPath: fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 3 }).map((p) =>
    p.join("/")
  ),
  oldMode: fc.constantFrom(...MODES),
  newMode: fc.constantFrom(...MODES),
}).map((f): DiffFile => ({
  oldPath: f.status === "added" ? null : f.oldPath,
  newPath: f.status === "deleted" ? null : f.newPath,
  oldPathBytes: null,
  newPathBytes: null,
  status: f.status,
  oldMode: f.oldMode,
  newMode: f.newMode,
  similarity: null,
  dissimilarity: null,
  oldHash: null,
  newHash: null,
  binary: false,
  binaryKind: null,
  binaryPatch: null,
  isSymlink: f.oldMode === "120000" || f.newMode === "120000",
  isGitlink: f.oldMode === "160000" || f.newMode === "160000",
  additions: 0,
  deletions: 0,
  hunks: [],
  headerKind: "git",
  line: 1,
}));

Deno.test("property: checkScope never throws; accept iff no violation; paths come from the diff", () => {
  const rules = compileScopeRules({ allow: ["a", "x/", "t/**"], forbid: ["b"], write: ["*"] });
  fc.assert(
    fc.property(fc.array(fileArb, { maxLength: 6 }), (files) => {
      const diff: GitDiff = { files };
      const report = checkScope(diff, rules);
      assert.equal(report.verdict === "accept", report.violations.length === 0);
      assert.equal(report.files.length, files.length);
      const names = new Set(files.flatMap((f) => [f.oldPath, f.newPath]));
      for (const v of report.violations) assert.ok(names.has(v.path), v.path);
      const keys = report.violations.map((v) => v.code + "\0" + v.path);
      assert.equal(new Set(keys).size, keys.length);
    }),
    { numRuns: 500 },
  );
});
