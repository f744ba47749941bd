/**
 * The import specifiers of a TypeScript source, for the layering tests.
 *
 * @module
 */

const STATIC_RE = /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?[^;]*?\bfrom\s+["']([^"']+)["']/g;
const SIDE_EFFECT_RE = /(?:^|\n)\s*import\s+["']([^"']+)["']/g;
const DYNAMIC_RE = /\bimport\s*\(\s*["']([^"']+)["']/g;

/** Every specifier a source imports (static, re-export, side-effect, dynamic). */
export function importSpecifiers(source: string): string[] {
  const out: string[] = [];
  for (const re of [STATIC_RE, SIDE_EFFECT_RE, DYNAMIC_RE]) {
    for (const m of source.matchAll(re)) out.push(m[1]!);
  }
  return out;
}
