/**
 * Reading the texts of runner configurations and check commands without
 * evaluating them: repository-relative paths, brace and extglob patterns,
 * JSON(C), the values of a key in YAML/JS/TS, INI sections and shell words.
 * Everything is bounded and tolerant (what cannot be read yields nothing).
 *
 * @module
 */

import { stripJsonComments } from "../text/jsonc.ts";

/** How many values one key or one list yields at the most. */
export const MAX_VALUES = 256;

export function dirOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "" : path.slice(0, i);
}

/** Joins `rel` onto `base` and normalises; `null` when it leaves the repository. */
export function joinRepo(base: string, rel: string): string | null {
  if (rel.startsWith("/")) return null;
  const out: string[] = base === "" ? [] : base.split("/");
  for (const part of rel.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (out.length === 0) return null;
      out.pop();
    } else out.push(part);
  }
  return out.length === 0 ? null : out.join("/");
}

export function isGlob(s: string): boolean {
  return /[*?[{]/.test(s);
}

/** Expands `{a,b}` alternatives (bounded); no nesting beyond what the bound allows. */
export function expandBraces(pattern: string, limit = 64): string[] {
  const open = pattern.indexOf("{");
  if (open < 0) return [pattern];
  let depth = 0;
  let close = -1;
  for (let i = open; i < pattern.length; i++) {
    if (pattern[i] === "{") depth++;
    else if (pattern[i] === "}" && --depth === 0) {
      close = i;
      break;
    }
  }
  if (close < 0) return [pattern];
  const inner = pattern.slice(open + 1, close);
  const alts: string[] = [];
  let d = 0;
  let start = 0;
  for (let i = 0; i <= inner.length; i++) {
    const c = inner[i];
    if (c === "{") d++;
    else if (c === "}") d--;
    else if ((c === "," && d === 0) || i === inner.length) {
      alts.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  const out: string[] = [];
  for (const alt of alts) {
    for (
      const rest of expandBraces(pattern.slice(0, open) + alt + pattern.slice(close + 1), limit)
    ) {
      if (out.length >= limit) return out;
      out.push(rest);
    }
  }
  return out;
}

/** Turns an extglob-ish runner pattern into plain globs: `?(x)`/`+(x|y)`/`@(x)` become braces. */
export function plainGlobs(pattern: string): string[] {
  const braced = pattern.replace(/[?+*@!]\(([^()]*)\)/g, (_m, body: string) => {
    const alts = body.split("|");
    return `{${alts.join(",")},}`;
  });
  return expandBraces(braced).map((p) => p.replace(/^\.\//, ""));
}

/** The strings of a JSON value (a string, or the strings of an array / of an object's values). */
export function strings(v: unknown, deep = 1): string[] {
  if (typeof v === "string") return [v];
  if (Array.isArray(v)) return v.flatMap((x) => strings(x, deep)).slice(0, MAX_VALUES);
  if (deep > 0 && typeof v === "object" && v !== null) {
    return Object.values(v).flatMap((x) => strings(x, deep - 1)).slice(0, MAX_VALUES);
  }
  return [];
}

/** The JSON (or JSONC) object of `text`, or null when it is not one. */
export function parseJson(text: string): Record<string, unknown> | null {
  for (const t of [text, stripJsonComments(text)]) {
    try {
      const v: unknown = JSON.parse(t);
      if (typeof v === "object" && v !== null && !Array.isArray(v)) {
        return v as Record<string, unknown>;
      }
    } catch {
      // try the next form
    }
  }
  return null;
}

/**
 * The values of `key` in a config this cannot evaluate (YAML, JS, TS): the
 * quoted strings (or bare YAML words) of `key: value`, `key: [a, b]` and of a
 * YAML list under `key:`.
 */
export function textValues(text: string, key: string): string[] {
  const out: string[] = [];
  const lines = text.split(/\r?\n/);
  const head = new RegExp(`^(\\s*)(?:-\\s*)?["']?${key}["']?\\s*[:=]\\s*(.*)$`);
  const inline = new RegExp(`[{,]\\s*["']?${key}["']?\\s*:\\s*(.*)$`);
  const quoted = /(["'`])((?:(?!\1)[^\\]|\\.)*)\1/g;
  for (let i = 0; i < lines.length && out.length < MAX_VALUES; i++) {
    const m = head.exec(lines[i]!) ?? inline.exec(lines[i]!);
    if (m === null) continue;
    let rest = (m.length === 3 ? m[2] : m[1])!.trim();
    if (rest.startsWith("[")) {
      let j = i;
      while (!rest.includes("]") && j + 1 < lines.length && j < i + 64) rest += " " + lines[++j];
      rest = rest.slice(0, rest.indexOf("]") + 1 || undefined);
    }
    const found = [...rest.matchAll(quoted)].map((q) => q[2]!);
    if (found.length > 0) out.push(...found);
    else if (rest === "" || rest === "|" || rest === ">") {
      const indent = (m.length === 3 ? m[1]! : "").length;
      for (let j = i + 1; j < lines.length && j < i + 64; j++) {
        const item = /^(\s*)-\s+(.*?)\s*$/.exec(lines[j]!);
        if (item === null || item[1]!.length < indent) break;
        out.push(item[2]!.replace(/^["']|["']$/g, ""));
      }
    } else if (!/^[{(]/.test(rest)) {
      out.push(
        ...rest.replace(/[,;]$/, "").split(/[\s,]+/).filter((w) => /^[\w./<>@*{}-]+$/.test(w)),
      );
    }
  }
  return out;
}

/** Splits a shell command into words (quotes respected, operators separate commands). */
export function shellWords(command: string): string[][] {
  const commands: string[][] = [[]];
  let word = "";
  let inWord = false;
  const flush = () => {
    if (inWord) commands.at(-1)!.push(word);
    word = "";
    inWord = false;
  };
  for (let i = 0; i < command.length && i < 65536; i++) {
    const c = command[i]!;
    if (c === "'" || c === '"') {
      const end = command.indexOf(c, i + 1);
      word += command.slice(i + 1, end < 0 ? command.length : end);
      inWord = true;
      i = end < 0 ? command.length : end;
    } else if (/\s/.test(c)) flush();
    else if (c === "&" || c === "|" || c === ";") {
      flush();
      if (commands.at(-1)!.length > 0) commands.push([]);
    } else {
      word += c;
      inWord = true;
    }
  }
  flush();
  return commands.filter((c) => c.length > 0);
}

export function iniSection(
  text: string,
  name: (header: string) => boolean,
): Record<string, string> {
  const out: Record<string, string> = {};
  let inside = false;
  let key: string | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const header = /^\s*\[([^\]]+)\]\s*$/.exec(raw);
    if (header) {
      inside = name(header[1]!.trim());
      key = null;
      continue;
    }
    if (!inside || /^\s*[#;]/.test(raw)) continue;
    const kv = /^([A-Za-z_][\w.-]*)\s*[=:]\s*(.*)$/.exec(raw);
    if (kv) {
      key = kv[1]!;
      out[key] = kv[2]!;
    } else if (key !== null && /^\s+\S/.test(raw)) out[key] += "\n" + raw.trim();
  }
  return out;
}

export function iniWords(value: string | undefined): string[] {
  if (value === undefined) return [];
  const v = value.trim();
  if (v.startsWith("[")) {
    return [...v.matchAll(/(["'])((?:(?!\1).)*)\1/g)].map((m) => m[2]!);
  }
  if (/^["']/.test(v)) {
    return [v.slice(1, v.search(/["']\s*$/) > 0 ? v.search(/["']\s*$/) : undefined)];
  }
  return v.split(/\s+/).filter((w) => w !== "");
}
