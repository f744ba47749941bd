/**
 * JSONC (JSON with comments and trailing commas, as `deno.jsonc`,
 * `tsconfig.json` and editors' settings are written) turned into JSON.
 * Pure; never touches I/O.
 *
 * @module
 */

const WHITESPACE = /\s/;

/**
 * Removes `//` and `/* *\/` comments and trailing commas (a `,` whose next
 * character, past blanks and comments, closes an object or array), so JSONC
 * parses with `JSON.parse`. The inside of every string is left exactly as it
 * is (`"a, }"`, `"//x"` and `"/*"` survive). A block comment becomes one
 * space, so the tokens either side stay apart. Plain JSON comes back
 * unchanged.
 *
 * @example
 * ```ts
 * import { stripJsonComments } from "./jsonc.ts";
 * const text = '{ "a": "//x, }", /* c *\/ "b": [1,], // d\n }';
 * const v = JSON.parse(stripJsonComments(text));
 * if (v.a !== "//x, }" || v.b.length !== 1) throw new Error("unexpected");
 * ```
 */
export function stripJsonComments(text: string): string {
  let out = "";
  let comma = -1; // where in `out` the last comma stands while only blanks follow it
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      const end = stringEnd(text, i);
      out += text.slice(i, end);
      comma = -1;
      i = end;
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      out += " ";
      i = end < 0 ? text.length : end + 2;
    } else {
      if ((c === "}" || c === "]") && comma >= 0) {
        out = out.slice(0, comma) + out.slice(comma + 1);
      }
      if (c === ",") comma = out.length;
      else if (!WHITESPACE.test(c)) comma = -1;
      out += c;
      i++;
    }
  }
  return out;
}

/** Just past the string opening at `start` (a `"`), or the text's end when it never closes. */
function stringEnd(text: string, start: number): number {
  let j = start + 1;
  while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
  return Math.min(j + 1, text.length);
}
