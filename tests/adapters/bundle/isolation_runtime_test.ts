import assert from "node:assert/strict";
import { evaluateBundleOn } from "../../../adapters/bundle/isolated.ts";
import {
  currentIsolation,
  denoIsolation,
  nodeIsolation,
  nodePermissionFlags,
} from "../../../adapters/bundle/isolation_runtime.ts";
import { VouchError } from "../../../kernel/errors/mod.ts";

const inputs = { bundleDir: "/nonexistent-b", workUnitPath: "/w.json", planPath: "/p.json" };

Deno.test("nodePermissionFlags() grants fs read per path, nothing else, and refuses commas", () => {
  assert.deepEqual(nodePermissionFlags("--experimental-permission", ["/a", "/b c"]), [
    "--experimental-permission",
    "--allow-fs-read=/a",
    "--allow-fs-read=/b c",
  ]);
  assert.throws(() => nodePermissionFlags("--permission", ["/a,/etc"]), RangeError);
  assert.throws(() => nodePermissionFlags("--permission", [""]), RangeError);
});

Deno.test("under Deno the isolation is Deno's: deno run with read-only flags, a clean env", () => {
  assert.equal(currentIsolation(), denoIsolation);
  const cmd = denoIsolation.command(new URL("file:///x/child.ts"), ["/a"], ["--k"]);
  assert.equal(cmd.program, Deno.execPath());
  assert.ok(cmd.args.includes("--allow-read=/a") && cmd.args.includes("--deny-run"));
  assert.deepEqual(cmd.args.slice(-2), ["/x/child.ts", "--k"]);
  assert.ok(
    Object.keys(cmd.env).every((k) =>
      ["NO_COLOR", "DENO_DIR", "HOME", "XDG_CACHE_HOME"].includes(k)
    ),
  );
});

Deno.test("a runtime that cannot isolate fails closed with isolation_unavailable, never unisolated", async () => {
  const missing = new URL("file:///nonexistent/evaluate_child.js");
  assert.throws(
    () => nodeIsolation.command(missing, ["/a"], []),
    (e: unknown) => e instanceof VouchError && e.code === "isolation_unavailable",
  );
  await assert.rejects(
    evaluateBundleOn(nodeIsolation, inputs, { childEntry: missing }),
    (e: unknown) =>
      e instanceof VouchError && e.code === "isolation_unavailable" &&
      /not evaluated unisolated/.test(e.message),
  );
});
