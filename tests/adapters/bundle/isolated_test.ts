import assert from "node:assert/strict";
import {
  childCommand,
  childPermissionFlags,
  evaluateBundle,
} from "../../../adapters/bundle/isolated.ts";
import { denoIsolation } from "../../../adapters/bundle/isolation_runtime.ts";
import { BUNDLE_FIXTURES, materializeFixture } from "../../redteam/bundles/fixtures.ts";

function fixture(name: string) {
  const f = BUNDLE_FIXTURES.find((x) => x.name === name);
  if (f === undefined) throw new Error(`no fixture ${name}`);
  return f;
}

async function withFixture(
  name: string,
  fn: (paths: { bundleDir: string; workUnitPath: string; planPath: string }) => Promise<void>,
): Promise<void> {
  const base = await Deno.makeTempDir({ prefix: `vouch-isolated-${name}-` });
  try {
    await fn(await materializeFixture(fixture(name), base));
  } finally {
    await Deno.remove(base, { recursive: true });
  }
}

Deno.test("childPermissionFlags() grants read on the given paths only and denies the rest", () => {
  const flags = childPermissionFlags(["/a", "/b/c.json"]);
  assert.deepEqual(flags, [
    "--no-prompt",
    "--allow-read=/a,/b/c.json",
    "--deny-write",
    "--deny-net",
    "--deny-run",
    "--deny-env",
    "--deny-ffi",
    "--deny-sys",
  ]);
  assert.throws(() => childPermissionFlags(["/a,/etc"]), RangeError);
  assert.throws(() => childPermissionFlags([""]), RangeError);
});

Deno.test("the isolated child cannot read, write, connect, run or see env outside its inputs", async () => {
  await withFixture("good", async (paths) => {
    const probe = new URL("./probe_child.ts", import.meta.url);
    const { program, args } = childCommand(paths, probe, [paths.planPath], denoIsolation);
    assert.equal(program, Deno.execPath());
    const out = await new Deno.Command(program, {
      args,
      clearEnv: true,
      env: { HOME: Deno.env.get("HOME") ?? "/root" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    const report = JSON.parse(new TextDecoder().decode(out.stdout));
    assert.deepEqual(report, {
      zodLoaded: true,
      readAllowed: "allowed",
      parsedAllowed: "allowed",
      readEtcPasswd: "NotCapable",
      readCwd: "NotCapable",
      writeTmp: "NotCapable",
      env: "NotCapable",
      net: "NotCapable",
      run: "NotCapable",
    });
  });
});

Deno.test("evaluateBundle() accepts the good bundle and rejects hostile ones", async () => {
  for (const name of ["good", "symlinked-artifact", "duplicate-json-keys", "forbidden-path"]) {
    await withFixture(name, async (paths) => {
      const result = await evaluateBundle(paths);
      const f = fixture(name).isolated ?? fixture(name);
      assert.equal(result.decision_support.recommendation, f.recommendation, name);
      assert.deepEqual(result.decision_support.reason_codes.toSorted(), [...f.reasons].sort());
    });
  }
});

Deno.test("evaluateBundle() fails closed on a child printing a forged result", async () => {
  await withFixture("good", async (paths) => {
    const result = await evaluateBundle(paths, {
      childEntry: new URL("./bad_child.ts", import.meta.url),
    });
    assert.equal(result.decision_support.recommendation, "insufficient_evidence");
    assert.deepEqual(result.decision_support.reason_codes, ["evaluator_error"]);
  });
});

Deno.test("evaluateBundle() fails closed on a child that cannot start or times out", async () => {
  await withFixture("good", async (paths) => {
    const missing = await evaluateBundle(paths, {
      childEntry: new URL("./does_not_exist.ts", import.meta.url),
    });
    assert.deepEqual(missing.decision_support.reason_codes, ["evaluator_error"]);
    const slow = await evaluateBundle(paths, { timeoutMs: 1 });
    assert.deepEqual(slow.decision_support.reason_codes, ["evaluator_error"]);
    const comma = await evaluateBundle({ ...paths, bundleDir: `${paths.bundleDir},/etc` });
    assert.deepEqual(comma.decision_support.reason_codes, ["evaluator_error"]);
  });
});
