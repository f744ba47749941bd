/**
 * The public API snapshot: every name each package entry point (deno.json
 * `exports`) exports, with its kind, from `deno doc --json`. `deno task api`
 * writes it to tests/api/exports.json; tests/api/exports_test.ts fails when the
 * code and the committed snapshot differ, so the API changes only on purpose.
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Where the committed snapshot lives. */
export const SNAPSHOT_PATH: string = join(ROOT, "tests", "api", "exports.json");

/** Entry point (as in deno.json, e.g. `./kernel`) to its sorted `name (kind)` list. */
export type ApiSnapshot = Record<string, string[]>;

interface DocNode {
  readonly name: string;
  readonly declarations: readonly { readonly kind: string }[];
}

/** The entry points deno.json exports, mapped to their files. */
export function entryPoints(): Record<string, string> {
  const config = JSON.parse(readFileSync(join(ROOT, "deno.json"), "utf8"));
  return config.exports as Record<string, string>;
}

/** Computes the snapshot of the code as it is now (runs `deno doc --json` per entry). */
export function collectApi(): ApiSnapshot {
  const snapshot: ApiSnapshot = {};
  for (
    const [entry, file] of Object.entries(entryPoints()).sort(([a], [b]) => a.localeCompare(b))
  ) {
    const out = execFileSync(Deno.execPath(), ["doc", "--json", file], {
      cwd: ROOT,
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
    });
    const doc = JSON.parse(out) as { nodes: Record<string, { symbols: DocNode[] }> };
    const names = new Set<string>();
    for (const node of Object.values(doc.nodes)) {
      for (const symbol of node.symbols) {
        const kinds = [...new Set(symbol.declarations.map((d) => d.kind))].sort();
        names.add(`${symbol.name} (${kinds.join(", ")})`);
      }
    }
    snapshot[entry] = [...names].sort();
  }
  return snapshot;
}

/** The snapshot as committed: pretty JSON, one name per line. */
export function renderSnapshot(snapshot: ApiSnapshot): string {
  return JSON.stringify(snapshot, null, 2) + "\n";
}

if (import.meta.main) {
  writeFileSync(SNAPSHOT_PATH, renderSnapshot(collectApi()));
  console.log(`wrote ${SNAPSHOT_PATH}`);
}
