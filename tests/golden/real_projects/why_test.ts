/**
 * "Say why": every rejection through the real `vouch verify` carries its
 * detail, in `--json` (`details`, each check's `detail`) and on screen
 * (`why:`), and a check that cannot start is "could not run" (exit 5).
 */
import assert from "node:assert/strict";
import { dirname } from "node:path";
import {
  createProject,
  HAVE_BWRAP,
  patchOf,
  type Project,
  show,
  verifyUnchanged,
  vouch,
} from "./_harness.ts";

const FILES = {
  "package.json": JSON.stringify({ name: "why", scripts: { test: "node test.js" } }),
  "lib.js": "exports.add = (a, b) => a - b;\n",
  "test.js": 'if (require("./lib.js").add(2, 3) !== 5) process.exit(1);\n',
  "count.txt": "5\n",
};
const FIX = { "lib.js": "exports.add = (a, b) => a + b;\n" };

async function withProject(fn: (p: Project) => Promise<void>): Promise<void> {
  const project = await createProject("vouch-rp-why-", FILES, { ignored: ["node_modules"] });
  try {
    await fn(project);
  } finally {
    await project.cleanup();
  }
}

const details = (run: { json: Record<string, unknown> | null }) =>
  (run.json?.["details"] as string[] | undefined ?? []).join("\n");

Deno.test("why: a patch git refuses shows git's error, and claims no failed checks", async () => {
  await withProject(async (project) => {
    const patch = await patchOf(project, FIX);
    // The base moved on: the patch's context no longer matches.
    await Deno.writeTextFile(`${project.dir}/lib.js`, "exports.add = (a, b) => b - a;\n");
    const { git } = await import("../fixture_repos.ts");
    await git(project.dir, "commit", "-qam", "moved on");
    const run = await verifyUnchanged(project, ["--patch", patch, "--verify", "npm test"]);
    assert.equal(run.code, 1, show(run));
    assert.deepEqual(run.json?.["reasons"], ["apply_failed"], show(run));
    assert.match(details(run), /Cannot apply patch in the clean tree: .*patch failed: lib\.js:1/s);
    const human = await vouch(project, ["verify", "--patch", patch, "--verify", "npm test"]);
    assert.match(human.stdout, /why:\n {2}Cannot apply patch in the clean tree/, show(human));
  });
});

Deno.test("why: a verify command that cannot start is 'could not run' (exit 5), with or without a baseline", async () => {
  await withProject(async (project) => {
    const patch = await patchOf(project, FIX);
    for (const extra of [[], ["--baseline"]]) {
      const run = await verifyUnchanged(project, [
        "--patch",
        patch,
        "--verify",
        "no-such-test-runner-xyz",
        ...extra,
      ]);
      assert.equal(run.code, 5, show(run));
      assert.ok((run.json?.["reasons"] as string[]).includes("verify_command_cannot_start"));
      assert.match(details(run), /no-such-test-runner-xyz: not found/, show(run));
    }
  });
});

Deno.test("why: a timeout says 'timed out after N s'", async () => {
  await withProject(async (project) => {
    const patch = await patchOf(project, FIX);
    const run = await verifyUnchanged(project, [
      "--patch",
      patch,
      "--verify",
      "sleep 30",
      "--timeout",
      "1",
    ]);
    assert.equal(run.code, 1, show(run));
    assert.match(details(run), /check "verify": timed out after 1(\.0)? s/, show(run));
  });
});

Deno.test("why: a scope violation names the path and the rule; a dependency change names the manifest and setup", async () => {
  await withProject(async (project) => {
    const ci = await patchOf(project, { ".github/workflows/ci.yml": "on: push\n" }, "ci");
    const scope = await verifyUnchanged(project, ["--patch", ci, "--verify", "npm test"]);
    assert.equal(scope.code, 1, show(scope));
    assert.match(details(scope), /\.github\/workflows\/ci\.yml: .*\.github\/\*\*/, show(scope));
    await Deno.mkdir(`${project.dir}/node_modules/dep`, { recursive: true });
    await Deno.writeTextFile(`${project.dir}/node_modules/dep/index.js`, "1\n");
    const manifest = await patchOf(project, {
      "package.json": JSON.stringify({ name: "why", dependencies: { dep: "1" } }),
    }, "manifest");
    const dep = await verifyUnchanged(project, ["--patch", manifest, "--verify", "npm test"]);
    assert.equal(dep.code, 1, show(dep));
    assert.deepEqual(dep.json?.["reasons"], ["dependency_change_needs_setup"]);
    assert.match(details(dep), /package\.json.*setup/s, show(dep));
  });
});

Deno.test("why: a differential shows its delta against the baseline", async () => {
  await withProject(async (project) => {
    const contract = `${project.state}/contract.json`;
    await Deno.writeTextFile(
      contract,
      JSON.stringify({
        description: "the count changes",
        checks: [
          { name: "before", run: "cat count.txt", baseline: true },
          {
            name: "after",
            run: "cat count.txt",
            differential: { against: "before", expect: "changed" },
          },
        ],
      }),
    );
    const patch = await patchOf(project, FIX);
    const run = await verifyUnchanged(project, ["--patch", patch, "--contract", contract]);
    assert.equal(run.code, 1, show(run));
    assert.match(details(run), /baseline printed "5", now "5"/, show(run));
  });
});

Deno.test("why: a dependency named by absolute path under /tmp is hidden by the sandbox; the failure says so and --sandbox-ro fixes it", async () => {
  if (!HAVE_BWRAP) {
    console.log("bwrap does not work here: the sandbox-hidden-path case needs it");
    return;
  }
  await withProject(async (project) => {
    // A shared helper outside the repository, required by absolute path (not the program itself).
    // Next to the checkout, not under the run's state dir (HOME, key file: never mountable).
    const shared = `${dirname(project.dir)}/shared`;
    const lib = `${shared}/check.js`;
    await Deno.mkdir(shared, { recursive: true });
    await Deno.writeTextFile(lib, "module.exports = true;\n");
    const patch = await patchOf(project, FIX);
    const command = `node -e "require('${lib}')" && npm test`;
    const hidden = await verifyUnchanged(project, [
      "--patch",
      patch,
      "--verify",
      command,
      "--sandbox",
      "bwrap",
    ]);
    assert.equal(hidden.code, 1, show(hidden));
    assert.ok(lib.startsWith("/tmp/"), "the fixture lives under /tmp");
    assert.match(
      details(hidden),
      new RegExp(`${lib.replaceAll("/", "\\/")} exists on this machine but not inside the sandbox`),
      show(hidden),
    );
    assert.match(details(hidden), new RegExp(`--sandbox-ro ${shared}`), show(hidden));
    // Doing what the message says makes it visible (read-only) and the fix verifies.
    const shown = await verifyUnchanged(project, [
      "--patch",
      patch,
      "--verify",
      command,
      "--sandbox",
      "bwrap",
      "--sandbox-ro",
      shared,
    ]);
    assert.equal(shown.code, 0, show(shown));
  });
});
