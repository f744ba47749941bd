/**
 * git's own account of a change: the `--raw -z` output of `git diff`
 * (`:<old mode> <new mode> <old id> <new id> <status>\0<path>\0`, with a second
 * path for renames and copies), parsed into entries. Used to judge what
 * `git apply` actually did, whatever modes the patch stated.
 *
 * @module
 */

/** One changed path as git reports it. */
export interface RawDiffEntry {
  /** Mode before (`000000` when added). */
  readonly oldMode: string;
  /** Mode after (`000000` when deleted). */
  readonly newMode: string;
  /** Object id before (all zeros when added). */
  readonly oldId: string;
  /** Object id after (all zeros when deleted or not yet hashed). */
  readonly newId: string;
  /** Status letter: `A`, `D`, `M`, `T` (type change), `R`, `C`, `U`, `X`. */
  readonly status: string;
  /** The path (the new path for renames and copies). */
  readonly path: string;
  /** The old path of a rename or copy, else null. */
  readonly fromPath: string | null;
}

const HEADER =
  /^:([0-7]{6}) ([0-7]{6}) ([0-9a-f]{4,64}) ([0-9a-f]{4,64}) ([ACDMRTUX])([0-9]{0,3})$/;

/**
 * Parses `git diff --raw -z` output. Returns null for anything that is not
 * exactly that format (the caller fails closed).
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { parseRawDiff } from "./raw.ts";
 * const z = "0".repeat(40);
 * deepEqual(parseRawDiff(`:120000 120000 ${z} ${z} M\0link\0`), [{
 *   oldMode: "120000", newMode: "120000", oldId: z, newId: z, status: "M", path: "link",
 *   fromPath: null,
 * }]);
 * deepEqual(parseRawDiff(""), []);
 * deepEqual(parseRawDiff("garbage\0"), null);
 * ```
 */
export function parseRawDiff(text: string): RawDiffEntry[] | null {
  const parts = text.split("\0");
  if (parts.at(-1) === "") parts.pop();
  const out: RawDiffEntry[] = [];
  for (let i = 0; i < parts.length;) {
    const m = HEADER.exec(parts[i]!);
    if (m === null) return null;
    const status = m[5]!;
    const twoPaths = status === "R" || status === "C";
    const first = parts[i + 1];
    const second = twoPaths ? parts[i + 2] : undefined;
    if (
      first === undefined || first === "" || (twoPaths && (second === undefined || second === ""))
    ) {
      return null;
    }
    out.push({
      oldMode: m[1]!,
      newMode: m[2]!,
      oldId: m[3]!,
      newId: m[4]!,
      status,
      path: twoPaths ? second! : first,
      fromPath: twoPaths ? first : null,
    });
    i += twoPaths ? 3 : 2;
  }
  return out;
}
