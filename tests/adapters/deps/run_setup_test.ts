import assert from "node:assert/strict";
import { join } from "node:path";
import { runSetup, setupCommandText } from "../../../adapters/deps/mod.ts";

Deno.test("runSetup: argv and shell commands in order; onResult gets each result and its start time", async () => {
  const tree = await Deno.makeTempDir({ prefix: "vouch-run-setup-" });
  try {
    const seen: { command: string; exit: number; startedAt: number }[] = [];
    const before = Date.now();
    const report = await runSetup(
      [{ argv: ["mkdir", "-p", "node_modules/dep"] }, {
        shell: "echo $NO_COLOR > node_modules/dep/x",
      }],
      {
        tree,
        env: { NO_COLOR: "1" },
        onResult: (command, result, startedAt) => {
          seen.push({ command, exit: result.exitCode, startedAt });
        },
      },
    );
    assert.equal(report.ok, true);
    assert.equal(report.reason, null);
    assert.deepEqual(seen.map((s) => [s.command, s.exit]), [
      ["mkdir -p node_modules/dep", 0],
      ["echo $NO_COLOR > node_modules/dep/x", 0],
    ]);
    assert.ok(seen.every((s) => s.startedAt >= before && s.startedAt <= Date.now()));
    assert.equal(await Deno.readTextFile(join(tree, "node_modules/dep/x")), "1\n");
  } finally {
    await Deno.remove(tree, { recursive: true });
  }
});

Deno.test("runSetup: fails closed on a timeout, a missing program, or a deadline with no time left", async () => {
  const tree = await Deno.makeTempDir({ prefix: "vouch-run-setup-" });
  try {
    const slow = await runSetup(["sleep 5"], { tree, timeoutMs: 200 });
    assert.equal(slow.ok, false);
    assert.equal(slow.reason, "timed out");
    const missing = await runSetup([{ argv: ["vouch-no-such-program-xyz"] }], { tree });
    assert.equal(missing.ok, false);
    assert.match(missing.reason ?? "", /^cannot start/);
    let ran = 0;
    const late = await runSetup(["touch never"], {
      tree,
      deadline: Date.now() - 1,
      onResult: () => {
        ran++;
      },
    });
    assert.deepEqual([late.ok, late.failed, ran], [false, "touch never", 0]);
    assert.match(late.reason ?? "", /deadline/);
    assert.equal(await Deno.lstat(join(tree, "never")).then(() => true, () => false), false);
    // The deadline clamps the per-command timeout: 10 minutes asked, ~300 ms left.
    const clamped = await runSetup(["sleep 5"], { tree, deadline: Date.now() + 300 });
    assert.equal(clamped.reason, "timed out");
    assert.ok(clamped.results[0]!.result.durationMs < 4000);
  } finally {
    await Deno.remove(tree, { recursive: true });
  }
});

Deno.test("setupCommandText shows what ran", () => {
  assert.equal(setupCommandText("npm ci"), "npm ci");
  assert.equal(setupCommandText({ shell: "npm ci && npm run build" }), "npm ci && npm run build");
  assert.equal(
    setupCommandText({ argv: ["npm", "install", "is-number"] }),
    "npm install is-number",
  );
});
