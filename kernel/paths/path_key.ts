/**
 * The comparison form of a path: what two names look like to a
 * case-insensitive, normalising filesystem (NTFS, APFS, HFS+).
 *
 * @module
 */
import { stripIgnorables } from "./confine_path.ts";

/**
 * Returns the comparison key of `path`: HFS-ignorable code points removed,
 * NFC-normalised and case-folded (full folding, so `ß` and `SS` agree). Two
 * paths whose keys are equal name the same file on some filesystem git
 * supports. Forbidden globs are matched against this form, and two names in
 * one patch with the same key are a collision.
 *
 * @example
 * ```ts
 * import { pathKey } from "./path_key.ts";
 * if (pathKey("README.md") !== pathKey("readme.MD")) throw new Error("case");
 * if (pathKey("caf\u00e9") !== pathKey("cafe\u0301")) throw new Error("nfc");
 * if (pathKey(".Git\u200chub/x") !== ".github/x") throw new Error("ignorable");
 * ```
 */
export function pathKey(path: string): string {
  for (let i = 0; i < path.length; i++) {
    if (path.charCodeAt(i) > 0x7f) return slowKey(path);
  }
  return path.toLowerCase();
}

function slowKey(path: string): string {
  const nfc = stripIgnorables(path).normalize("NFC");
  // lower -> upper -> lower: a full fold that also maps U+1E9E and U+00DF to "ss".
  return nfc.toLowerCase().toUpperCase().toLowerCase().normalize("NFC");
}
