/**
 * `patchImportMeta` rewrites every shape of `import.meta` esbuild emits in a
 * CommonJS bundle: a top-level `var import_meta = {};` and a module loaded on
 * demand's `import_metaN = {};` inside `__esm` (the CLI loads its commands on
 * demand; missing that shape broke `dist/vouch evaluate` with a TypeError).
 */
import assert from "node:assert/strict";
import { patchImportMeta } from "../../tools/build_sea.ts";

const URL_OF_EXE = '{ url: require("node:url").pathToFileURL(process.execPath).href }';

Deno.test("patchImportMeta: a top-level var and an on-demand module's assignment both get a url", () => {
  const bundle = [
    "var import_meta = {};",
    "var init_x = __esm({",
    '  "adapters/bundle/isolation_runtime.ts"() {',
    "    import_meta3 = {};",
    '    BUNDLED = !import_meta3.url.endsWith(".ts");',
    "  }",
    "});",
  ].join("\n");
  const out = patchImportMeta(bundle);
  assert.ok(out.includes(`var import_meta = ${URL_OF_EXE};`), out);
  assert.ok(out.includes(`    import_meta3 = ${URL_OF_EXE};`), out);
  assert.doesNotMatch(out, /\bimport_meta\d* = \{\}/);
});

Deno.test("patchImportMeta: other empty objects are left alone", () => {
  const code = "var options = {};\n  state = {};\nconst import_metadata = {};";
  assert.equal(patchImportMeta(code), code);
});
