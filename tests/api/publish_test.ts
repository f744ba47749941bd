/**
 * The package stays publishable on JSR: `deno publish --dry-run` (the real
 * tool, run on this checkout) finds no slow types, no missing license and no
 * other problem. A schema exported without an explicit type, or a public type
 * written as `z.infer<typeof schema>`, fails this test with deno's own report.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

Deno.test({
  name: "deno publish --dry-run succeeds: no slow types, license present",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["publish", "--dry-run", "--allow-dirty"],
      cwd: ROOT,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, `deno publish --dry-run failed:\n${text.slice(-8000)}`);
    assert.match(text, /Success Dry run complete/);
    assert.doesNotMatch(text, /error\[|warning\[|Found \d+ problem/i, text.slice(-8000));
    // The license travels with the package.
    assert.match(text, /LICENSE/);
  },
});

// Entry points whose reference is complete: every exported symbol documented, every type it
// names exported. Add an entry point here when `deno doc --lint` reaches 0 on it.
const DOC_CLEAN_ENTRY_POINTS = ["cli/main.ts", "wasm/mod.ts"];

Deno.test({
  name: `deno doc --lint finds nothing on ${DOC_CLEAN_ENTRY_POINTS.join(", ")}`,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    for (const entry of DOC_CLEAN_ENTRY_POINTS) {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["doc", "--lint", entry],
        cwd: ROOT,
        env: { NO_COLOR: "1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 0, `deno doc --lint ${entry}:\n${text.slice(-8000)}`);
      assert.doesNotMatch(text, /^error/m, text.slice(-8000));
    }
  },
});
