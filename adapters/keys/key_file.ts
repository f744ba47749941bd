import {
  chmodSync,
  closeSync,
  constants,
  fdatasyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  type Stats,
  statSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import process from "node:process";
import type { z } from "zod";
import { KeyError } from "./errors.ts";
import { assertOutsideRepository, canonicalRepoRoot } from "./paths.ts";

const errno = (error: unknown): string | undefined => (error as { code?: string } | null)?.code;

/**
 * Reads a private key file, refusing one that group or others can access.
 * Returns null when it does not exist.
 */
export function readPrivateFile(path: string): Uint8Array | null {
  let info: Stats;
  try {
    info = statSync(path);
  } catch (error) {
    if (errno(error) === "ENOENT") return null;
    throw new KeyError("io", `Cannot read key file ${path}: ${String(error)}`, { cause: error });
  }
  if ((info.mode & 0o077) !== 0) {
    throw new KeyError(
      "insecure_permissions",
      `Cannot use key file ${path}: mode ${
        (info.mode & 0o777).toString(8)
      } lets others read it; run chmod 600`,
    );
  }
  try {
    return new Uint8Array(readFileSync(path));
  } catch (error) {
    throw new KeyError("io", `Cannot read key file ${path}: ${String(error)}`, { cause: error });
  }
}

/**
 * Creates a private file (mode 0600, parent directories 0700) with `createNew`,
 * so two processes racing to create a key agree on one. Returns false when the
 * file already existed (the caller then reads it).
 */
export function createPrivateFile(path: string, bytes: Uint8Array): boolean {
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new KeyError("io", `Cannot create key directory for ${path}: ${String(error)}`, {
      cause: error,
    });
  }
  // Write to a temp file, then hard-link into place: the key file never exists
  // half-written, and link() fails if another process created it first.
  const tmp = `${path}.tmp-${process.pid}-${crypto.randomUUID()}`;
  try {
    const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      let off = 0;
      while (off < bytes.length) off += writeSync(fd, bytes, off);
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
    chmodSync(tmp, 0o600);
    try {
      linkSync(tmp, path);
      return true;
    } catch (error) {
      if (errno(error) === "EEXIST") return false;
      throw error;
    }
  } catch (error) {
    if (error instanceof KeyError) throw error;
    throw new KeyError("io", `Cannot create key file ${path}: ${String(error)}`, { cause: error });
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** One kind of key file, for {@linkcode loadOrCreateKeyFile}. */
export interface KeyFileKind<T> {
  /** The key in error messages (`MAC key`, `signing key`, `the fleet key`). */
  readonly name: string;
  /** What a file that does not parse is not (`a vouch HMAC key file`). */
  readonly kind: string;
  /** The file's `type` field. */
  readonly type: string;
  /**
   * The repository a per-repository key belongs to: the file must lie outside
   * it, and a new file records it (canonical) as `repo`.
   */
  readonly repoRoot?: string;
  /** The whole file (its `v`, `type`, `created` and `repo` fields included). */
  readonly schema: z.ZodType<T>;
  /**
   * The fields of a new file after `v`, `type`, `created` and `repo` (fresh key
   * material); throws when a missing file may not be created.
   */
  readonly fresh: () => Promise<Record<string, string>> | Record<string, string>;
}

/**
 * Reads the key file at `path`, first creating it (mode 0600, `v: 1`, its
 * `type`, the time, the repository and `fresh()`'s fields) when it does not
 * exist: a racing process's file wins. A file that does not parse is `corrupt`.
 */
export async function loadOrCreateKeyFile<T>(path: string, file: KeyFileKind<T>): Promise<T> {
  if (file.repoRoot !== undefined) assertOutsideRepository(path, file.repoRoot);
  let bytes = readPrivateFile(path);
  if (bytes === null) {
    const fields = await file.fresh();
    const repo = file.repoRoot === undefined ? {} : { repo: canonicalRepoRoot(file.repoRoot) };
    const text = JSON.stringify(
      { v: 1, type: file.type, created: new Date().toISOString(), ...repo, ...fields },
      null,
      2,
    );
    createPrivateFile(path, new TextEncoder().encode(text + "\n"));
    bytes = readPrivateFile(path);
    if (bytes === null) throw new KeyError("io", `Cannot create ${file.name} ${path}`);
  }
  try {
    return file.schema.parse(JSON.parse(new TextDecoder().decode(bytes)));
  } catch (cause) {
    throw new KeyError("corrupt", `Cannot load ${file.name} ${path}: not ${file.kind}`, { cause });
  }
}
