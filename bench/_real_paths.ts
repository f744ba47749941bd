/**
 * Real file paths for benchmarks: a deterministic walk of /usr/lib, /usr/share
 * and this repository (relative names), capped. Not part of the library.
 *
 * @module
 */
import { join, relative } from "node:path";

/** Up to `limit` real relative paths, in a deterministic order. */
export function collectRealPaths(limit: number): string[] {
  const out: string[] = [];
  const roots = ["/usr/share", "/usr/lib", "/usr/include", "/usr/local/lib"];
  const walk = (dir: string, base: string): void => {
    if (out.length >= limit) return;
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(dir)].sort((a, b) => a.name < b.name ? -1 : 1);
    } catch {
      return;
    }
    for (const entry of entries) {
      if (out.length >= limit) return;
      const full = join(dir, entry.name);
      if (entry.isDirectory) walk(full, base);
      else if (entry.isFile) out.push(relative(base, full));
    }
  };
  for (const root of roots) walk(root, "/usr");
  return out;
}
