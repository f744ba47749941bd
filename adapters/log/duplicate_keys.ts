/**
 * Finds the first object key that appears twice in one JSON object. `JSON.parse`
 * silently keeps the last duplicate, so a line `{"a":1,"a":2}` would otherwise be
 * read as something other than what a different parser sees.
 *
 * Only called on lines that already parsed with `JSON.parse` but did not match
 * their canonical form, so it may assume well-formed JSON.
 *
 * @example
 * ```ts
 * import { findDuplicateKey } from "./duplicate_keys.ts";
 * if (findDuplicateKey('{"a":1,"b":{"c":1,"c":2}}') !== "c") throw new Error();
 * if (findDuplicateKey('{"a":[{"a":1}]}') !== null) throw new Error();
 * ```
 */
export function findDuplicateKey(text: string): string | null {
  let i = 0;
  const skipWs = () => {
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else break;
    }
  };
  const readString = (): string => {
    const start = i;
    i++; // opening quote
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x5c) i += 2;
      else if (c === 0x22) {
        i++;
        break;
      } else i++;
    }
    return JSON.parse(text.slice(start, i)) as string;
  };
  // Iterative walk with an explicit stack of key sets (null for arrays).
  const stack: (Set<string> | null)[] = [];
  while (i < text.length) {
    skipWs();
    const c = text[i];
    if (c === undefined) break;
    if (c === "{") {
      stack.push(new Set());
      i++;
      skipWs();
      if (text[i] === "}") continue;
      // read the first key
      const key = readString();
      stack[stack.length - 1]!.add(key);
      skipWs();
      i++; // colon
    } else if (c === "[") {
      stack.push(null);
      i++;
    } else if (c === "}" || c === "]") {
      stack.pop();
      i++;
    } else if (c === ",") {
      i++;
      const top = stack[stack.length - 1];
      if (top) {
        skipWs();
        const key = readString();
        if (top.has(key)) return key;
        top.add(key);
        skipWs();
        i++; // colon
      }
    } else if (c === '"') {
      readString();
    } else {
      // number, true, false, null
      while (i < text.length && !",]} \t\n\r".includes(text[i]!)) i++;
    }
  }
  return null;
}
