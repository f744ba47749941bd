/**
 * `confinePath` and `pathKey` cost per path over ~100k real paths (a walk of
 * /usr), as strings and as UTF-8 bytes. ns/path = time / path count.
 */
import { confinePath, pathKey } from "../kernel/paths/mod.ts";
import { collectRealPaths } from "./_real_paths.ts";

const PATHS = collectRealPaths(100_000);
const encoder = new TextEncoder();
const BYTES = PATHS.map((p) => encoder.encode(p));
const HOSTILE = PATHS.slice(0, 10_000).map((p, i) =>
  i % 4 === 0 ? `../${p}` : i % 4 === 1 ? `${p}/.GIT/x` : i % 4 === 2 ? `CON.${p}` : p
);
const group = `confinePath: ${PATHS.length} real paths`;
let sink = 0;

Deno.bench({ group, name: "confinePath(string)", baseline: true, n: 10, warmup: 2 }, () => {
  for (const p of PATHS) if (confinePath(p).ok) sink++;
});

Deno.bench({ group, name: "floor: one charCodeAt pass (no checks)", n: 10, warmup: 2 }, () => {
  for (const p of PATHS) for (let i = 0; i < p.length; i++) sink += p.charCodeAt(i);
});

Deno.bench({ group, name: "confinePath(bytes)", n: 10, warmup: 2 }, () => {
  for (const b of BYTES) if (confinePath(b).ok) sink++;
});

Deno.bench({ group, name: "pathKey(string)", n: 10, warmup: 2 }, () => {
  for (const p of PATHS) sink += pathKey(p).length;
});

Deno.bench({ name: "confinePath: 10k mixed hostile paths", n: 10, warmup: 2 }, () => {
  for (const p of HOSTILE) if (confinePath(p).ok) sink++;
});

globalThis.addEventListener("unload", () => {
  if (sink < 0) console.log(sink);
});
