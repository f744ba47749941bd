/**
 * The command table (`cli/commands/mod.ts`) lists each command's name and
 * summary without loading it: they must be the loaded command's own, and
 * `vouch --help` / `--version` must load no command module.
 */
import assert from "node:assert/strict";
import { COMMANDS, loadCommands } from "../../cli/commands/mod.ts";

Deno.test("each table row's name and summary are its loaded command's", async () => {
  const loaded = await loadCommands();
  assert.equal(new Set(COMMANDS.map((c) => c.name)).size, COMMANDS.length);
  for (const [i, entry] of COMMANDS.entries()) {
    assert.equal(loaded[i]!.name, entry.name);
    assert.equal(loaded[i]!.summary, entry.summary, entry.name);
  }
});

interface GraphModule {
  specifier: string;
  dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[];
}

/** The modules `deno` loads before `main.ts` runs: its static import closure (`deno info`). */
async function staticClosure(root: URL): Promise<Set<string>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", root.href],
    stdout: "piped",
    stderr: "null",
  }).output();
  assert.equal(out.code, 0, "deno info");
  const graph = JSON.parse(new TextDecoder().decode(out.stdout)) as { modules: GraphModule[] };
  const byUrl = new Map(graph.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const todo = [root.href];
  while (todo.length > 0) {
    const url = todo.pop()!;
    if (seen.has(url)) continue;
    seen.add(url);
    for (const dep of byUrl.get(url)?.dependencies ?? []) {
      const next = dep.code?.specifier;
      if (dep.isDynamic !== true && next !== undefined) todo.push(next);
    }
  }
  return seen;
}

Deno.test("the CLI's entry imports no command module, zod or failure.ts up front, and reaches each command", async () => {
  const main = new URL("../../cli/main.ts", import.meta.url);
  const closure = await staticClosure(main);
  const commands = new URL("../../cli/commands/", import.meta.url).href;
  const eager = [...closure].filter((u) => u.startsWith(commands) && !u.endsWith("/mod.ts"));
  assert.deepEqual(eager, [], "command modules loaded before any command runs");
  // nor zod, nor the failure renderer (it imports the commands' error classes): `--version`
  // and `--help` load only the table and the help texts' tables
  const heavy = [...closure].filter((u) => u.startsWith("npm:") || u.endsWith("/cli/failure.ts"));
  assert.deepEqual(heavy, [], "heavy modules loaded before any command runs");
  for (const entry of COMMANDS) {
    assert.ok((await staticClosure(new URL(`${entry.name}.ts`, commands))).size > 1, entry.name);
  }
});
