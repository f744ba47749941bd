/**
 * Reading untrusted bundle files: every path component is `lstat`ed (no
 * symlinks anywhere, directories only on the way), the file must be regular
 * with exactly one link, its identity is re-checked after `open`, and the
 * bytes are hashed while streaming under a verifier-owned cap. Nothing here
 * throws: every outcome is a `FileObservation`.
 *
 * @module
 */
import type { BigIntStats } from "node:fs";
import { lstat, open, opendir } from "node:fs/promises";
import { join } from "node:path/posix";
import type { FileFailureCode, FileObservation } from "../../kernel/bundle/facts.ts";
import { StreamingSha256 } from "../digest/mod.ts";
import { concatBytes } from "../bytes/concat.ts";

/** Options for {@linkcode readBundleFile}. */
export interface ReadBundleFileOptions {
  /** Verifier-owned cap; reading stops and fails as soon as it is exceeded. */
  maxBytes: number;
  /** Return the bytes as well as the digest. @default false */
  keepBytes?: boolean;
}

const CHUNK = 64 * 1024;

function fail(code: FileFailureCode, detail: string): FileObservation {
  return { ok: false, code, detail };
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function isNotFound(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "ENOENT";
}

/** `lstat` with 64-bit device and inode numbers (no rounding in identity checks). */
function lstatBig(path: string): Promise<BigIntStats> {
  return lstat(path, { bigint: true });
}

/**
 * Reads `relPath` (already confined, `/`-separated) under `root`.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { readBundleFile } from "./files.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-"));
 * writeFileSync(`${dir}/a.txt`, "abc");
 * const seen = await readBundleFile(dir, "a.txt", { maxBytes: 10 });
 * if (!seen.ok || !seen.digest.startsWith("sha256:ba7816bf")) throw new Error("unexpected");
 * const big = await readBundleFile(dir, "a.txt", { maxBytes: 2 });
 * if (big.ok || big.code !== "file_oversize") throw new Error("unexpected");
 * rmSync(dir, { recursive: true, force: true });
 * ```
 */
export async function readBundleFile(
  root: string,
  relPath: string,
  options: ReadBundleFileOptions,
): Promise<FileObservation> {
  const parts = relPath.split("/");
  let current = root;
  for (let i = 0; i < parts.length - 1; i++) {
    current = join(current, parts[i]!);
    let info: BigIntStats;
    try {
      info = await lstatBig(current);
    } catch (error) {
      if (isNotFound(error)) {
        return fail(
          "file_missing",
          `${relPath}: directory ${parts.slice(0, i + 1).join("/")} is missing`,
        );
      }
      return fail("file_unreadable", `${relPath}: ${describeError(error)}`);
    }
    if (info.isSymbolicLink()) {
      return fail(
        "file_symlink",
        `${relPath}: ${parts.slice(0, i + 1).join("/")} is a symbolic link`,
      );
    }
    if (!info.isDirectory()) {
      return fail(
        "file_not_regular",
        `${relPath}: ${parts.slice(0, i + 1).join("/")} is not a directory`,
      );
    }
  }
  const full = join(root, relPath);
  let before: BigIntStats;
  try {
    before = await lstatBig(full);
  } catch (error) {
    if (isNotFound(error)) return fail("file_missing", `${relPath} is missing`);
    return fail("file_unreadable", `${relPath}: ${describeError(error)}`);
  }
  if (before.isSymbolicLink()) return fail("file_symlink", `${relPath} is a symbolic link`);
  if (!before.isFile()) {
    return fail("file_not_regular", `${relPath} is not a regular file`);
  }
  if (before.nlink !== 1n) {
    return fail("file_hardlinked", `${relPath} has ${before.nlink} links, expected 1`);
  }
  const size = Number(before.size);
  if (size > options.maxBytes) {
    return fail("file_oversize", `${relPath} has ${size} bytes, cap ${options.maxBytes}`);
  }

  let file: Awaited<ReturnType<typeof open>>;
  try {
    file = await open(full, "r");
  } catch (error) {
    return fail("file_unreadable", `${relPath}: ${describeError(error)}`);
  }
  try {
    const opened = await file.stat({ bigint: true });
    if (
      !opened.isFile() || opened.dev !== before.dev || opened.ino !== before.ino ||
      opened.nlink !== 1n
    ) {
      return fail("file_changed", `${relPath} changed between lstat and open`);
    }
    const hash = new StreamingSha256();
    const chunks: Uint8Array[] = [];
    const buffer = new Uint8Array(CHUNK);
    let total = 0;
    while (true) {
      const { bytesRead: n } = await file.read(buffer, 0, CHUNK, null);
      if (n === 0) break;
      total += n;
      if (total > options.maxBytes) {
        return fail("file_oversize", `${relPath} exceeds the cap of ${options.maxBytes} bytes`);
      }
      const chunk = buffer.subarray(0, n);
      hash.update(chunk);
      if (options.keepBytes === true) chunks.push(chunk.slice());
    }
    if (total !== size) {
      return fail("file_changed", `${relPath} was ${size} bytes at lstat, read ${total}`);
    }
    // Narrow the swap window: the path must still name the same file, through real directories.
    if (!(await sameFileStill(root, parts, before))) {
      return fail("file_changed", `${relPath} was replaced while it was read`);
    }
    const digest = hash.hex();
    if (options.keepBytes !== true) return { ok: true, digest, size: total };
    return { ok: true, digest, size: total, bytes: concatBytes(chunks) };
  } catch (error) {
    return fail("file_unreadable", `${relPath}: ${describeError(error)}`);
  } finally {
    await file.close().catch(() => {});
  }
}

async function sameFileStill(
  root: string,
  parts: readonly string[],
  before: BigIntStats,
): Promise<boolean> {
  try {
    let current = root;
    for (let i = 0; i < parts.length - 1; i++) {
      current = join(current, parts[i]!);
      const info = await lstatBig(current);
      if (info.isSymbolicLink() || !info.isDirectory()) return false;
    }
    const after = await lstatBig(join(root, ...parts));
    return after.isFile() && after.dev === before.dev && after.ino === before.ino &&
      after.nlink === 1n && after.size === before.size;
  } catch {
    return false;
  }
}

/** Options for {@linkcode listBundleEntries}. */
export interface ListBundleEntriesOptions {
  /** Stop (and fail) after this many entries. @default 10000 */
  maxEntries?: number;
  /** Stop (and fail) below this directory depth. @default 32 */
  maxDepth?: number;
}

/**
 * Lists every non-directory entry under `root` (files, symlinks, FIFOs, ...)
 * as `/`-separated relative paths, sorted. Symlinks are listed, never followed.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { listBundleEntries } from "./files.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-"));
 * mkdirSync(`${dir}/d`);
 * writeFileSync(`${dir}/d/x`, "1");
 * const listed = await listBundleEntries(dir);
 * if (!listed.ok || listed.paths.join() !== "d/x") throw new Error("unexpected");
 * rmSync(dir, { recursive: true, force: true });
 * ```
 */
export async function listBundleEntries(
  root: string,
  options: ListBundleEntriesOptions = {},
): Promise<{ ok: true; paths: string[] } | { ok: false; detail: string }> {
  const maxEntries = options.maxEntries ?? 10_000;
  const maxDepth = options.maxDepth ?? 32;
  const paths: string[] = [];
  let seen = 0;
  const walk = async (dir: string, prefix: string, depth: number): Promise<string | null> => {
    if (depth > maxDepth) return `directory nesting deeper than ${maxDepth}`;
    // Streamed (opendir), so a huge directory stops at the cap instead of being read whole.
    for await (const entry of await opendir(dir)) {
      if (++seen > maxEntries) return `more than ${maxEntries} entries`;
      const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      // Dirent types come from lstat semantics: a symlink to a directory is not a directory.
      if (entry.isDirectory()) {
        const problem = await walk(join(dir, entry.name), rel, depth + 1);
        if (problem !== null) return problem;
      } else {
        paths.push(rel);
      }
    }
    return null;
  };
  try {
    const problem = await walk(root, "", 0);
    if (problem !== null) return { ok: false, detail: `Cannot list bundle: ${problem}` };
  } catch (error) {
    return { ok: false, detail: `Cannot list bundle: ${describeError(error)}` };
  }
  paths.sort();
  return { ok: true, paths };
}
