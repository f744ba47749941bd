/**
 * The library runs on Node: no `Deno.*` call remains in kernel/, adapters/,
 * cli/ and wasm/ (doc comments aside) outside the allowlist below, each entry
 * with the reason it is Deno-only. New adapter code uses `node:` APIs (fs,
 * child_process, crypto, os, path, process), which Deno's permission flags
 * govern as well.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { ROOT, RUNTIME_DEPENDENCIES, runtimeImports } from "../../tools/build_npm.ts";

/** Files allowed to call Deno APIs, and why. */
const DENO_ONLY: Record<string, string> = {
  "cli/commands/_queue_net.ts": "re-runs under Deno with --allow-net=HOST (no-op under Node)",
  "adapters/egress/_forwarder_source.ts":
    "the in-namespace forwarder's script text: Deno sockets when it runs under Deno, node: builtins under Node (both branches tested in tests/adapters/egress)",
  "adapters/backends/_model_net_source.ts":
    "the openai: model helper's script text: it runs only as a Deno process with --allow-net=HOST:PORT (under Node vouch fetches the model itself and never starts it)",
  "adapters/egress/_proxy_source.ts":
    "the proxy helper's script text: Deno sockets when it runs under Deno, node: builtins under Node (both branches tested in tests/adapters/egress)",
};

function codeFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name !== "assembly" && name !== "_gen") out.push(...codeFiles(p));
    } else if (name.endsWith(".ts")) out.push(p);
  }
  return out;
}

function denoCalls(file: string): number {
  return readFileSync(file, "utf8").split("\n").filter((line) =>
    !/^\s*(\*|\/\/|\/\*)/.test(line) && /\bDeno\.[A-Za-z]/.test(line.replace(/(["'`]).*?\1/g, ""))
  ).length;
}

Deno.test("no Deno.* API outside the Deno-only allowlist (kernel, adapters, cli, wasm)", () => {
  const found: string[] = [];
  for (const tree of ["kernel", "adapters", "cli", "wasm"]) {
    for (const file of codeFiles(join(ROOT, tree))) {
      if (denoCalls(file) > 0) found.push(relative(ROOT, file));
    }
  }
  if (denoCalls(join(ROOT, "mod.ts")) > 0) found.push("mod.ts");
  const unexpected = found.filter((f) => !(f in DENO_ONLY));
  assert.deepEqual(
    unexpected,
    [],
    `Deno.* calls in ${unexpected.join(", ")}: use node: APIs (they run on Node and Deno)`,
  );
  // the allowlist stays honest: every entry still needs it
  assert.deepEqual(Object.keys(DENO_ONLY).filter((f) => !found.includes(f)), []);
});

Deno.test("every npm package the library imports is a dependency of the npm package", () => {
  const imports = runtimeImports();
  assert.ok(imports.includes("zod"));
  const missing = imports.filter((spec) =>
    !RUNTIME_DEPENDENCIES.some((dep) => spec === dep || spec.startsWith(dep + "/"))
  );
  assert.deepEqual(missing, [], `add to RUNTIME_DEPENDENCIES in tools/build_npm.ts: ${missing}`);
});

/** Files whose JSDoc examples may call Deno APIs, and why (everything else shows node: APIs). */
const DENO_ONLY_EXAMPLES: Record<string, string> = {};

Deno.test("JSDoc examples (shipped in the npm package's .d.ts) use node: APIs, not Deno.*", () => {
  const found = new Set<string>();
  for (const tree of ["kernel", "adapters", "cli", "wasm"]) {
    for (const file of codeFiles(join(ROOT, tree))) {
      let inExample = false;
      for (const line of readFileSync(file, "utf8").split("\n")) {
        if (/^\s*\* ```/.test(line)) inExample = !inExample;
        else if (inExample && /\bDeno\.[A-Za-z]/.test(line)) found.add(relative(ROOT, file));
      }
    }
  }
  const unexpected = [...found].filter((f) => !(f in DENO_ONLY_EXAMPLES));
  assert.deepEqual(unexpected, [], `Deno.* in the examples of ${unexpected.join(", ")}`);
  assert.deepEqual(Object.keys(DENO_ONLY_EXAMPLES).filter((f) => !found.has(f)), []);
});
