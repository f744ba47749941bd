import assert from "node:assert/strict";
import fc from "fast-check";
import { hiddenPathHint, hiddenPaths } from "../../../adapters/deps/mod.ts";

Deno.test("hiddenPaths: only paths reported missing, existing on the host, outside the tree", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vouch-hidden-" });
  try {
    await Deno.mkdir(`${dir}/tools/bin`, { recursive: true });
    await Deno.writeTextFile(`${dir}/tools/bin/lint`, "#!/bin/sh\n");
    const log = [
      `sh: 1: ${dir}/tools/bin/lint: not found`,
      `Error: Cannot find module '${dir}/tools'`,
      "sh: 1: /nonexistent/tool: not found", // missing on the host too: not a sandbox matter
      `/wt/tree/node_modules/.bin/x: not found`, // inside the tree: the check's own
      `ran ${dir}/tools/bin/lint fine`, // no "missing" wording
    ].join("\n");
    assert.deepEqual(hiddenPaths(log, { tree: "/wt/tree" }), [
      { path: `${dir}/tools/bin/lint`, mount: `${dir}/tools/bin` },
      { path: `${dir}/tools`, mount: `${dir}/tools` },
    ]);
    const hint = hiddenPathHint(log, { tree: "/wt/tree" }) ?? "";
    assert.match(hint, /exist on this machine but not inside the sandbox/);
    assert.match(hint, new RegExp(`--sandbox-ro ${dir}/tools/bin --sandbox-ro ${dir}/tools `));
    assert.equal(hiddenPathHint("all good\n", { tree: "/wt/tree" }), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("hiddenPaths (property): never throws, at most 5, never inside the tree", () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 300 }), fc.boolean(), (text, all) => {
      const r = hiddenPaths(`${text}\nENOENT ${text}`, {
        tree: "/t",
        exists: () => (all ? "file" : null),
      });
      assert.ok(r.length <= 5);
      for (const h of r) assert.ok(h.path.startsWith("/") && !h.path.startsWith("/t/"));
    }),
    { numRuns: 300 },
  );
});
