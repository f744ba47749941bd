import assert from "node:assert/strict";
import { join } from "node:path";
import { createDependencyProvisioner } from "../../../adapters/deps/provision.ts";

async function git(cwd: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("git", { args, cwd, stderr: "piped" }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
}

const pkg = (extra: Record<string, unknown>) =>
  JSON.stringify(
    { name: "p", scripts: { test: "mocha" }, devDependencies: { mocha: "^10.0.0" }, ...extra },
    null,
    2,
  ) + "\n";

Deno.test("a package.json edit of its mocha config is no dependency change; one of its dependencies is", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vouch-manifest-" });
  try {
    await git(dir, "init", "-q");
    await git(dir, "config", "user.email", "t@example.invalid");
    await git(dir, "config", "user.name", "t");
    await Deno.writeTextFile(join(dir, "package.json"), pkg({}));
    await Deno.writeTextFile(join(dir, ".gitignore"), "node_modules/\n");
    await git(dir, "add", ".");
    await git(dir, "commit", "-qm", "init");
    await Deno.mkdir(join(dir, "node_modules", "mocha"), { recursive: true });
    const provisioner = createDependencyProvisioner({ repo: dir, hasSetup: false });

    // Unchanged against HEAD but listed as changed: fails closed (refused).
    assert.equal((await provisioner.provide(dir, ["package.json"])).ok, false);

    // Only the "mocha" config block changes: provided, not refused.
    await Deno.writeTextFile(join(dir, "package.json"), pkg({ mocha: { timeout: 5000 } }));
    assert.equal((await provisioner.provide(dir, ["package.json"])).ok, true);

    // A dependency changes: refused as before.
    await Deno.writeTextFile(
      join(dir, "package.json"),
      pkg({ mocha: { timeout: 5000 }, dependencies: { "left-pad": "1.3.0" } }),
    );
    const dep = await provisioner.provide(dir, ["package.json"]);
    assert.equal(dep.ok, false);

    // An install hook changes: refused too.
    await Deno.writeTextFile(
      join(dir, "package.json"),
      pkg({ scripts: { test: "mocha", postinstall: "node build.js" } }),
    );
    assert.equal((await provisioner.provide(dir, ["package.json"])).ok, false);

    // Not JSON: refused (fail closed).
    await Deno.writeTextFile(join(dir, "package.json"), "{ not json");
    assert.equal((await provisioner.provide(dir, ["package.json"])).ok, false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a pyproject.toml edit inside [tool.pytest.ini_options] is no dependency change; one of [project] is", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vouch-manifest-py-" });
  const py = (addopts: string, deps: string, extra = "") =>
    `[project]\nname = "p"\ndependencies = [${deps}]\n${extra}\n` +
    `[tool.pytest.ini_options]\naddopts = "${addopts}"\n\n[tool.coverage.run]\nbranch = true\n`;
  try {
    await git(dir, "init", "-q");
    await git(dir, "config", "user.email", "t@example.invalid");
    await git(dir, "config", "user.name", "t");
    await Deno.writeTextFile(join(dir, "pyproject.toml"), py("-q", '"click"'));
    await git(dir, "add", ".");
    await git(dir, "commit", "-qm", "init");
    const provisioner = createDependencyProvisioner({ repo: dir, hasSetup: false });
    const provide = async (text: string) => {
      await Deno.writeTextFile(join(dir, "pyproject.toml"), text);
      return (await provisioner.provide(dir, ["pyproject.toml"])).ok;
    };
    // The click session's cheat: addopts deselects the failing tests. Judged by the oracle, not
    // refused as a dependency change.
    assert.equal(await provide(py("-q -k 'not length'", '"click"')), true);
    assert.equal(await provide(py("-q", '"click", "left-pad"')), false);
    // A multi-line string may hide what looks like a table header: fails closed.
    assert.equal(
      await provide(py("-x", '"click"', 'description = """\n[tool.pytest]\n"""')),
      false,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
