/**
 * A deliberately simple, independent gitignore-style matcher used as the
 * oracle in property tests: segment by segment, recursive, exponential in the
 * worst case (fine for small random inputs). Shares no code with kernel/glob.
 */

interface RefPattern {
  negated: boolean;
  dirOnly: boolean;
  segments: string[];
}

function parse(pattern: string): RefPattern {
  let body = pattern;
  let negated = false;
  if (body.startsWith("!")) {
    negated = true;
    body = body.slice(1);
  }
  let dirOnly = false;
  while (body.endsWith("/") && !body.endsWith("\\/")) {
    dirOnly = true;
    body = body.slice(0, -1);
  }
  let anchored = false;
  if (body.startsWith("/")) {
    anchored = true;
    body = body.replace(/^\/+/, "");
  }
  const segments: string[] = [];
  let current = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === "\\") {
      current += c + (body[i + 1] ?? "");
      i++;
    } else if (c === "/") {
      segments.push(current);
      current = "";
    } else {
      current += c;
    }
  }
  segments.push(current);
  if (segments.length > 1) anchored = true;
  if (!anchored) segments.unshift("**");
  return { negated, dirOnly, segments };
}

function isGlobstar(seg: string): boolean {
  return /^\*{2,}$/.test(seg);
}

/** fnmatch on one segment (no '/'), over code points. */
function matchSegment(pat: string[], pi: number, name: string[], ni: number): boolean {
  if (pi === pat.length) return ni === name.length;
  const c = pat[pi]!;
  if (c === "*") {
    let next = pi;
    while (pat[next] === "*") next++;
    for (let k = ni; k <= name.length; k++) {
      if (matchSegment(pat, next, name, k)) return true;
    }
    return false;
  }
  if (ni === name.length) return false;
  if (c === "?") return matchSegment(pat, pi + 1, name, ni + 1);
  if (c === "\\") {
    return pat[pi + 1] === name[ni] && matchSegment(pat, pi + 2, name, ni + 1);
  }
  if (c === "[") {
    let j = pi + 1;
    let neg = false;
    if (pat[j] === "!" || pat[j] === "^") {
      neg = true;
      j++;
    }
    let hit = false;
    let first = true;
    const ch = name[ni]!.codePointAt(0)!;
    while (j < pat.length && (first || pat[j] !== "]")) {
      first = false;
      let lo = pat[j]!;
      if (lo === "\\") lo = pat[++j]!;
      j++;
      let hi = lo;
      if (pat[j] === "-" && j + 1 < pat.length && pat[j + 1] !== "]") {
        hi = pat[j + 1]!;
        if (hi === "\\") hi = pat[++j + 1]!;
        j += 2;
      }
      if (ch >= lo.codePointAt(0)! && ch <= hi.codePointAt(0)!) hit = true;
    }
    if (j >= pat.length) throw new Error("unclosed class");
    return hit !== neg && matchSegment(pat, j + 1, name, ni + 1);
  }
  return c === name[ni] && matchSegment(pat, pi + 1, name, ni + 1);
}

function matchSegments(segs: string[], si: number, parts: string[], pi: number): boolean {
  if (si === segs.length) return pi === parts.length;
  const seg = segs[si]!;
  if (isGlobstar(seg)) {
    const last = si === segs.length - 1;
    // A trailing "**" needs at least one more name; an inner one, zero or more.
    for (let k = last ? pi + 1 : pi; k <= parts.length; k++) {
      if (matchSegments(segs, si + 1, parts, k)) return true;
    }
    return false;
  }
  if (pi === parts.length) return false;
  return matchSegment([...seg], 0, [...parts[pi]!], 0) &&
    matchSegments(segs, si + 1, parts, pi + 1);
}

/** Whether one pattern matches `path` or one of its leading directories. */
export function referenceMatchOne(pattern: string, path: string): boolean {
  const p = parse(pattern);
  const parts = path.split("/");
  for (let k = 1; k <= parts.length; k++) {
    if (k === parts.length && p.dirOnly) break;
    if (matchSegments(p.segments, 0, parts.slice(0, k), 0)) return true;
  }
  return false;
}

/** Ordered-list semantics: the last matching pattern decides. */
export function referenceLastMatch(patterns: readonly string[], path: string): number {
  for (let i = patterns.length - 1; i >= 0; i--) {
    if (referenceMatchOne(patterns[i]!, path)) return i;
  }
  return -1;
}
