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
import { KeyError } from "./errors.ts";

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
