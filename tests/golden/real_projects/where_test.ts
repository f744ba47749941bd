/**
 * "Where you stand": from a subdirectory of the repository, `verify`,
 * `inspect` and `attest export` find the repository and its log; relative
 * paths are the user's. `attest export` selects by task or patch digest and
 * says which; `verify --attest-out` attests exactly the patch it verified.
 */
import assert from "node:assert/strict";
import { createProject, patchOf, show, vouch } from "./_harness.ts";

Deno.test("where: verify, inspect and attest export work from a subdirectory; attest selects and says which", async () => {
  const project = await createProject("vouch-rp-where-", {
    "package.json": JSON.stringify({ name: "where", scripts: { test: "node test.js" } }),
    "lib.js": "exports.add = (a, b) => a - b;\n",
    "test.js": 'if (require("./lib.js").add(2, 3) !== 5) process.exit(1);\n',
    "src/deep/readme.txt": "a subdirectory\n",
  });
  try {
    const sub = `${project.dir}/src/deep`;
    const fix = await patchOf(project, { "lib.js": "exports.add = (a, b) => a + b;\n" });
    const other = await patchOf(project, {
      "lib.js": "exports.add = (a, b) => b + a;\n",
    }, "other");
    await Deno.copyFile(fix, `${sub}/fix.patch`);
    // Relative paths are the user's: fix.patch and a.intoto.json in src/deep.
    const first = await vouch(project, [
      "verify",
      "--patch",
      "fix.patch",
      "--verify",
      "npm test",
      "--attest-out",
      "a.intoto.json",
      "--json",
    ], { cwd: sub });
    assert.equal(first.code, 0, show(first));
    const task1 = String(first.json?.["task"]);
    const digest1 = String(first.json?.["patchDigest"]);
    assert.match(first.stderr, new RegExp(`attesting verified patch ${digest1} of task ${task1}`));
    await Deno.stat(`${sub}/a.intoto.json`);
    const second = await vouch(project, ["verify", "--patch", other, "--verify", "npm test"], {
      cwd: sub,
    });
    assert.equal(second.code, 0, show(second));

    const inspect = await vouch(project, ["inspect"], { cwd: sub });
    assert.equal(inspect.code, 0, show(inspect));

    // Two verified patches: the default is the latest, and it says so; selection picks the first.
    const latest = await vouch(project, ["attest", "export", "--out", "latest.json"], { cwd: sub });
    assert.equal(latest.code, 0, show(latest));
    assert.match(
      latest.stderr,
      /the latest of 2 verified patches; select with --task or --patch-digest/,
    );
    const byTask = await vouch(project, ["attest", "export", "--task", task1, "--out", "t.json"], {
      cwd: sub,
    });
    assert.equal(byTask.code, 0, show(byTask));
    assert.match(byTask.stderr, new RegExp(`${digest1} of task ${task1} \\(selected for task`));
    const byDigest = await vouch(project, [
      "attest",
      "export",
      "--patch-digest",
      digest1.slice("sha256:".length, "sha256:".length + 16),
      "--out",
      "d.json",
      "--pub-out",
      "vouch.pub",
    ], { cwd: sub });
    assert.equal(byDigest.code, 0, show(byDigest));
    assert.match(byDigest.stderr, new RegExp(`${digest1} of task ${task1}`));
    const byPatch = await vouch(project, ["attest", "export", "--patch", "fix.patch"], {
      cwd: sub,
    });
    assert.equal(byPatch.code, 0, show(byPatch));
    assert.match(byPatch.stderr, new RegExp(`${digest1} of task ${task1}`));
    // The attestation written by verify --attest-out is of exactly the verified patch.
    const check = await vouch(project, [
      "attest",
      "verify",
      "a.intoto.json",
      "--key",
      "vouch.pub",
      "--patch",
      "fix.patch",
    ], { cwd: sub });
    assert.equal(check.code, 0, show(check));
  } finally {
    await project.cleanup();
  }
});
