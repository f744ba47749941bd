/**
 * The package stays publishable on JSR: `deno publish --dry-run` (the real
 * tool, run on this checkout) finds no slow types, no missing license and no
 * other problem. A schema exported without an explicit type, or a public type
 * written as `z.infer<typeof schema>`, fails this test with deno's own report.
 *
 * It runs `--no-check`: the slow-type and package checks are the same with it
 * (a function without an explicit return type still fails the dry run), and the
 * type check it skips is `deno check --doc .`'s, a phase of `deno task test`
 * (tests/_phases.ts TYPE_CHECKS) over every module the package exports and more.
 * Type-checking the package's graph a second time here cost ~14 of its 20 CPU-s.
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
      args: ["publish", "--dry-run", "--allow-dirty", "--no-check"],
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

async function docLint(entries: readonly string[]): Promise<{ code: number; text: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--lint", ...entries],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  return { code: out.code, text };
}

// Every entry point deno.json exports, read from deno.json itself: a new export is covered
// the moment it is added.
const EXPORTS: Record<string, string> = JSON.parse(
  Deno.readTextFileSync(`${ROOT}deno.json`),
).exports;
const ENTRY_POINTS = Object.values(EXPORTS).map((p) => p.replace(/^\.\//, ""));

Deno.test({
  name: "deno doc --lint over every export in deno.json: 0 errors (the package as JSR sees it)",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    assert.ok(ENTRY_POINTS.length >= 6, ENTRY_POINTS.join(", "));
    const { code, text } = await docLint(ENTRY_POINTS);
    const errors = text.split("\n").filter((l) => /^error\[/.test(l));
    assert.deepEqual(errors, [], text.slice(-8000));
    assert.equal(code, 0, `deno doc --lint ${ENTRY_POINTS.join(" ")}:\n${text.slice(-8000)}`);
  },
});

// Entry points that are complete on their own: every type they name is exported by the same
// entry point (the kernel is used alone, e.g. bundled for the browser). The root and the
// adapters' entry points name kernel types that `./kernel` exports, so they are checked as
// part of the package above.
const SELF_CONTAINED_ENTRY_POINTS = ["kernel/mod.ts", "cli/main.ts", "wasm/mod.ts"];

Deno.test({
  name: `deno doc --lint finds nothing on ${SELF_CONTAINED_ENTRY_POINTS.join(", ")} alone`,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    for (const entry of SELF_CONTAINED_ENTRY_POINTS) {
      const { code, text } = await docLint([entry]);
      assert.equal(code, 0, `deno doc --lint ${entry}:\n${text.slice(-8000)}`);
      assert.doesNotMatch(text, /^error/m, text.slice(-8000));
    }
  },
});
