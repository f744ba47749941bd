/**
 * Enforces the layering of `adapters/`: its folders form a directed acyclic
 * graph (an edge A -> B for every import, type-only ones included, from a file
 * in `adapters/A/` of a file in `adapters/B/`), and no adapter imports the CLI.
 * A cycle means two concerns are really one, or a shared piece lives in the
 * wrong folder: move the piece (usually a type) to the lower folder.
 *
 * It also enforces that no FILE of `kernel/`, `adapters/` or `cli/` is on an
 * import cycle (files in one folder included): a file-level cycle means the
 * modules cannot be read, tested or loaded one at a time.
 */
import assert from "node:assert/strict";
import { dirname, join, normalize, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { importSpecifiers } from "./_imports.ts";

const ROOT = normalize(join(dirname(fileURLToPath(import.meta.url)), "../.."));
const ADAPTERS = join(ROOT, "adapters");

/** One import of one file in another adapters folder. */
interface Edge {
  readonly from: string;
  readonly to: string;
  /** `file: specifier`, for the failure message. */
  readonly site: string;
}

async function* tsFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* tsFiles(path);
    else if (entry.isFile && path.endsWith(".ts")) yield path;
  }
}

/** The first path segment below `base`, or null when `path` is not inside a folder of it. */
function folderOf(base: string, path: string): string | null {
  const rel = relative(base, path);
  if (rel.startsWith("..")) return null;
  const parts = rel.split(sep);
  return parts.length >= 2 ? parts[0]! : null;
}

/**
 * The strongly connected components with more than one folder (each one is a
 * cycle), by Tarjan's algorithm; each is sorted, and the list is sorted.
 */
export function folderCycles(edges: readonly Edge[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const e of edges) {
    if (!next.has(e.from)) next.set(e.from, new Set());
    if (!next.has(e.to)) next.set(e.to, new Set());
    next.get(e.from)!.add(e.to);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let counter = 0;
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

async function adapterImports(): Promise<{ edges: Edge[]; cli: string[]; files: number }> {
  const edges: Edge[] = [];
  const cli: string[] = [];
  let files = 0;
  for await (const file of tsFiles(ADAPTERS)) {
    files++;
    const from = folderOf(ADAPTERS, file);
    const source = await Deno.readTextFile(file);
    for (const spec of importSpecifiers(source)) {
      if (!spec.startsWith(".")) continue;
      const target = normalize(join(dirname(file), spec));
      const site = `${relative(ROOT, file)}: ${spec}`;
      if (target.startsWith(join(ROOT, "cli") + sep)) cli.push(site);
      const to = folderOf(ADAPTERS, target);
      if (from !== null && to !== null && from !== to) edges.push({ from, to, site });
    }
  }
  return { edges, cli, files };
}

Deno.test("adapters/ folders import each other without a cycle", async () => {
  const { edges, files } = await adapterImports();
  assert.ok(files > 50, `only ${files} adapter sources found`);
  // Non-vacuous: the scanner sees edges the code is known to have.
  assert.ok(edges.some((e) => e.from === "git" && e.to === "process"), "git -> process not seen");
  assert.ok(edges.some((e) => e.from === "driver" && e.to === "verification"));
  const report = folderCycles(edges).map((cycle) => {
    const inside = edges.filter((e) => cycle.includes(e.from) && cycle.includes(e.to));
    return `cycle ${cycle.join(" <-> ")}:\n` +
      inside.map((e) => `  ${e.from} -> ${e.to}  (${e.site})`).join("\n");
  });
  assert.deepEqual(report, [], report.join("\n"));
});

/** Every relative import of every source of `kernel/`, `adapters/` and `cli/`, file to file. */
async function fileImports(): Promise<Edge[]> {
  const edges: Edge[] = [];
  for (const top of ["kernel", "adapters", "cli"]) {
    for await (const file of tsFiles(join(ROOT, top))) {
      const from = relative(ROOT, file);
      for (const spec of importSpecifiers(await Deno.readTextFile(file))) {
        if (!spec.startsWith(".")) continue;
        const to = relative(ROOT, normalize(join(dirname(file), spec)));
        if (to !== from) edges.push({ from, to, site: `${from}: ${spec}` });
      }
    }
  }
  return edges;
}

Deno.test("no file of kernel/, adapters/ or cli/ is on an import cycle", async () => {
  const edges = await fileImports();
  assert.ok(edges.length > 500, `only ${edges.length} imports found`);
  // Non-vacuous: the scanner sees an import the code is known to have.
  assert.ok(edges.some((e) =>
    e.from === join("adapters", "driver", "run_task.ts") &&
    e.to === join("adapters", "driver", "_task_run.ts")
  ));
  const report = folderCycles(edges).map((cycle) => {
    const inside = edges.filter((e) => cycle.includes(e.from) && cycle.includes(e.to));
    return `cycle ${cycle.join(" <-> ")}:\n` + inside.map((e) => `  ${e.site}`).join("\n");
  });
  assert.deepEqual(report, [], report.join("\n"));
});

Deno.test("adapters/ import nothing from cli/", async () => {
  const { cli } = await adapterImports();
  assert.deepEqual(cli, []);
});

Deno.test("the cycle finder reports every cycle and nothing else (self-test)", () => {
  const e = (from: string, to: string): Edge => ({ from, to, site: `${from}.ts` });
  assert.deepEqual(folderCycles([e("a", "b"), e("b", "c"), e("c", "d")]), []);
  assert.deepEqual(folderCycles([e("a", "b"), e("b", "c"), e("c", "a"), e("c", "d")]), [[
    "a",
    "b",
    "c",
  ]]);
  assert.deepEqual(folderCycles([e("x", "y"), e("y", "x"), e("p", "q"), e("q", "p")]), [
    ["p", "q"],
    ["x", "y"],
  ]);
});

Deno.test("the import scanner sees every import form (self-test)", () => {
  const source = [
    'import { a } from "../a/x.ts";',
    'import type {\n  B,\n} from "../b/y.ts";',
    'export * from "../c/mod.ts";',
    'import "../d/side.ts";',
    'const { e } = await import("../e/lazy.ts");',
  ].join("\n");
  assert.deepEqual(importSpecifiers(source).sort(), [
    "../a/x.ts",
    "../b/y.ts",
    "../c/mod.ts",
    "../d/side.ts",
    "../e/lazy.ts",
  ]);
});
