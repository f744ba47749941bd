/**
 * Fails when the committed `wasm/_gen/` output is stale: rebuilds every
 * `wasm/assembly/` entry into a temporary directory with the pinned compiler
 * and flags and compares byte for byte. Run by `deno task check`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { buildWasm, ROOT } from "./build_wasm.ts";

Deno.test("wasm/_gen matches a fresh build of wasm/assembly", async () => {
  const outDir = await Deno.makeTempDir({ prefix: "vouch-wasm-fresh-" });
  try {
    const written = await buildWasm(outDir);
    assert.ok(written.length > 0, "no wasm/assembly entries were built");
    const stale: string[] = [];
    for (const file of written) {
      const fresh = await Deno.readTextFile(join(outDir, file));
      let committed: string | null = null;
      try {
        committed = await Deno.readTextFile(join(ROOT, "wasm/_gen", file));
      } catch {
        committed = null;
      }
      if (committed !== fresh) stale.push(file);
    }
    const extra: string[] = [];
    for await (const entry of Deno.readDir(join(ROOT, "wasm/_gen"))) {
      if (!written.includes(entry.name)) extra.push(entry.name);
    }
    assert.deepEqual(
      { stale, extra },
      { stale: [], extra: [] },
      "wasm/_gen is stale: run `deno task build:wasm` and commit the result",
    );
  } finally {
    await Deno.remove(outDir, { recursive: true });
  }
});
