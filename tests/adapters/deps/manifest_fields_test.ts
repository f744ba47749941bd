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
