/**
 * Lexical path confinement: the one gate every name from a patch passes
 * before anything else looks at it.
 *
 * @module
 */
import {
  MAX_COMPONENT_BYTES,
  MAX_PATH_BYTES,
  PATH_REJECTION_CODES as C,
  type PathRejectionCode,
} from "./codes.ts";
import { decodeUtf8Strict } from "../text/utf8.ts";

/** The outcome of {@link confinePath}. */
export type ConfineResult =
  | { readonly ok: true; readonly path: string }
  | { readonly ok: false; readonly code: PathRejectionCode; readonly detail: string };

/**
 * True for the code points HFS+ ignores when comparing names
 * (U+200C–200F, U+202A–202E, U+206A–206F, U+FEFF).
 *
 * @example
 * ```ts
 * import { isHfsIgnorable } from "./confine_path.ts";
 * if (!isHfsIgnorable(0x200c) || isHfsIgnorable(0x41)) throw new Error("unexpected");
 * ```
 */
export function isHfsIgnorable(c: number): boolean {
  return (c >= 0x200c && c <= 0x200f) || (c >= 0x202a && c <= 0x202e) ||
    (c >= 0x206a && c <= 0x206f) || c === 0xfeff;
}

function reject(code: PathRejectionCode, detail: string): ConfineResult {
  return { ok: false, code, detail };
}

function isAsciiLetter(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

/**
 * Checks that `raw` is a safe repository-relative path: a name git itself would
 * accept on every platform (`verify_path` with NTFS and HFS protections) and
 * that cannot escape the worktree. Bytes are decoded as strict UTF-8 first.
 * Returns the path unchanged on success, or the first failure with a stable
 * {@link PathRejectionCode} and a short human detail. Never throws.
 *
 * @example
 * ```ts
 * import { confinePath } from "./confine_path.ts";
 * const good = confinePath("src/main.ts");
 * if (!good.ok || good.path !== "src/main.ts") throw new Error("unexpected");
 * const bad = confinePath("a/../../etc/passwd");
 * if (bad.ok || bad.code !== "dotdot_component") throw new Error("unexpected");
 * const git = confinePath(".GIT./config");
 * if (git.ok || git.code !== "dot_git") throw new Error("unexpected");
 * ```
 */
export function confinePath(raw: string | Uint8Array): ConfineResult {
  let s: string;
  if (typeof raw === "string") {
    s = raw;
  } else {
    if (raw.length > MAX_PATH_BYTES) {
      return reject(C.pathTooLong, `path has ${raw.length} bytes (max ${MAX_PATH_BYTES})`);
    }
    const decoded = decodeUtf8Strict(raw);
    if (decoded === null) return reject(C.invalidUtf8, "path is not valid UTF-8");
    s = decoded;
  }
  const n = s.length;
  if (n === 0) return reject(C.empty, "path is empty");
  if (n > MAX_PATH_BYTES) {
    return reject(C.pathTooLong, `path has more than ${MAX_PATH_BYTES} bytes`);
  }
  const c0 = s.charCodeAt(0);
  if ((c0 === 0x2f || c0 === 0x5c) && n > 1 && s.charCodeAt(1) === c0) {
    return reject(C.uncPath, "path starts with a UNC prefix");
  }
  if (c0 === 0x2f || c0 === 0x5c) return reject(C.absolute, "path is absolute");
  if (c0 === 0x2d || c0 === 0x21) {
    return reject(C.optionLike, "path starts with '-' or '!' (an option or a negation)");
  }
  if (n > 1 && s.charCodeAt(1) === 0x3a && isAsciiLetter(c0)) {
    return reject(C.driveLetter, "path starts with a drive letter");
  }
  let bytes = 0;
  let compStart = 0;
  let compBytes = 0;
  let compAscii = true;
  let compDot = -1;
  let compTilde = false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      if (c === 0x2f) {
        const bad = checkComponent(s, compStart, i, compBytes, compAscii, compDot, compTilde);
        if (bad !== null) return bad;
        compStart = i + 1;
        compBytes = 0;
        compAscii = true;
        compDot = -1;
        compTilde = false;
        bytes++;
        continue;
      }
      if (c === 0x2e) {
        if (compDot < 0) compDot = i;
      } else if (c === 0x7e) {
        compTilde = true;
      }
      if (c < 0x20 || c === 0x7f) {
        if (c === 0) return reject(C.nulByte, `NUL byte at offset ${i}`);
        return reject(C.controlChar, `control character U+${hex4(c)} at offset ${i}`);
      }
      if (c === 0x5c) return reject(C.backslash, `backslash at offset ${i}`);
      if (c === 0x3a) return reject(C.colon, `colon at offset ${i}`);
      bytes++;
      compBytes++;
      continue;
    }
    compAscii = false;
    if (c <= 0x9f || c === 0x2028 || c === 0x2029) {
      return reject(C.controlChar, `control character U+${hex4(c)} at offset ${i}`);
    }
    if (c < 0x800) {
      bytes += 2;
      compBytes += 2;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const next = i + 1 < n ? s.charCodeAt(i + 1) : 0;
      if (c > 0xdbff || next < 0xdc00 || next > 0xdfff) {
        return reject(C.invalidUtf8, `lone surrogate at offset ${i}`);
      }
      i++;
      bytes += 4;
      compBytes += 4;
    } else {
      bytes += 3;
      compBytes += 3;
    }
  }
  if (compStart === n) return reject(C.trailingSlash, "path ends with '/'");
  const bad = checkComponent(s, compStart, n, compBytes, compAscii, compDot, compTilde);
  if (bad !== null) return bad;
  if (bytes > MAX_PATH_BYTES) {
    return reject(C.pathTooLong, `path has ${bytes} bytes (max ${MAX_PATH_BYTES})`);
  }
  return { ok: true, path: s };
}

function hex4(c: number): string {
  return c.toString(16).toUpperCase().padStart(4, "0");
}

function checkComponent(
  s: string,
  start: number,
  end: number,
  compBytes: number,
  ascii: boolean,
  firstDot: number,
  hasTilde: boolean,
): ConfineResult | null {
  const len = end - start;
  if (len === 0) return reject(C.emptyComponent, `empty component at offset ${start}`);
  const first = s.charCodeAt(start);
  if (first === 0x2e) {
    if (len === 1) return reject(C.dotComponent, `'.' component at offset ${start}`);
    if (len === 2 && s.charCodeAt(start + 1) === 0x2e) {
      return reject(C.dotdotComponent, `'..' component at offset ${start}`);
    }
  }
  if (compBytes > MAX_COMPONENT_BYTES) {
    return reject(
      C.componentTooLong,
      `component at offset ${start} has ${compBytes} bytes (max ${MAX_COMPONENT_BYTES})`,
    );
  }
  if ((!ascii || first === 0x2e || (first | 0x20) === 0x67) && isDotGit(s, start, end, ascii)) {
    return reject(C.dotGit, `component '${s.slice(start, end)}' names the .git directory`);
  }
  const last = s.charCodeAt(end - 1);
  if (last === 0x2e || last === 0x20) {
    return reject(C.trailingDotOrSpace, `component at offset ${start} ends with a dot or space`);
  }
  const f = first | 0x20;
  // c, p, a, n, l: a possible device name.
  const maybeDevice = f === 0x63 || f === 0x70 || f === 0x61 || f === 0x6e || f === 0x6c;
  if (!maybeDevice && !hasTilde) return null;
  // The base name: up to the first dot, without trailing spaces.
  let baseEnd = firstDot < 0 ? end : firstDot;
  while (baseEnd > start && s.charCodeAt(baseEnd - 1) === 0x20) baseEnd--;
  const baseLen = baseEnd - start;
  if (maybeDevice && baseLen >= 3 && baseLen <= 7 && isDeviceName(s, start, baseEnd)) {
    return reject(C.deviceName, `component '${s.slice(start, end)}' is a Windows device name`);
  }
  if (!hasTilde) return null;
  // 8.3 short name: base ends with '~' followed by one or more digits.
  let j = baseEnd;
  while (j > start && isDigit(s.charCodeAt(j - 1))) j--;
  if (j < baseEnd && j > start && s.charCodeAt(j - 1) === 0x7e) {
    return reject(C.shortName, `component '${s.slice(start, end)}' is an 8.3 short name`);
  }
  return null;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** `.git` with any case, HFS-ignorable code points, trailing dots/spaces; or `git~1`. */
function isDotGit(s: string, start: number, end: number, ascii: boolean): boolean {
  if (!ascii) {
    const name = stripIgnorables(s.slice(start, end));
    return isDotGit(name, 0, name.length, true);
  }
  let e = end;
  while (e > start && (s.charCodeAt(e - 1) === 0x2e || s.charCodeAt(e - 1) === 0x20)) e--;
  const n = e - start;
  if (n === 4) {
    return s.charCodeAt(start) === 0x2e && (s.charCodeAt(start + 1) | 0x20) === 0x67 &&
      (s.charCodeAt(start + 2) | 0x20) === 0x69 && (s.charCodeAt(start + 3) | 0x20) === 0x74;
  }
  if (n === 5) {
    return (s.charCodeAt(start) | 0x20) === 0x67 && (s.charCodeAt(start + 1) | 0x20) === 0x69 &&
      (s.charCodeAt(start + 2) | 0x20) === 0x74 && s.charCodeAt(start + 3) === 0x7e &&
      s.charCodeAt(start + 4) === 0x31;
  }
  return false;
}

/**
 * Removes the HFS-ignorable code points (see {@link isHfsIgnorable}).
 *
 * @example
 * ```ts
 * import { stripIgnorables } from "./confine_path.ts";
 * if (stripIgnorables(".g\u200cit") !== ".git") throw new Error("unexpected");
 * ```
 */
export function stripIgnorables(s: string): string {
  let out = "";
  let runStart = 0;
  for (let i = 0; i < s.length; i++) {
    if (isHfsIgnorable(s.charCodeAt(i))) {
      out += s.slice(runStart, i);
      runStart = i + 1;
    }
  }
  return runStart === 0 ? s : out + s.slice(runStart);
}

const DEVICE_NAMES = new Set(["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"]);

function isDeviceName(s: string, start: number, end: number): boolean {
  const base = s.slice(start, end).toUpperCase();
  if (DEVICE_NAMES.has(base)) return true;
  if (base.length !== 4) return false;
  const stem = base.slice(0, 3);
  if (stem !== "COM" && stem !== "LPT") return false;
  const d = base.charCodeAt(3);
  return isDigit(d) || d === 0xb9 || d === 0xb2 || d === 0xb3;
}
