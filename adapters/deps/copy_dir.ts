/**
 * Copying a dependency directory: copy-on-write where the filesystem can.
 *
 * @module
 */
import { constants } from "node:fs";
import { cp, mkdir, rm } from "node:fs/promises";
import process from "node:process";
import { VouchError } from "../../kernel/errors/mod.ts";
import { runProcess } from "../process/run.ts";

/** Thrown when a dependency directory cannot be copied (disk full, unreadable files). */
export class DependencyCopyError extends VouchError<"dependency_copy_failed"> {
  constructor(message: string) {
    super("dependency_copy_failed", message);
    this.name = "DependencyCopyError";
  }
}

/**
 * Copies `source` (a directory) to `dest` (absent): copy-on-write clones
 * where the filesystem supports them (`cp -a --reflink=auto` on Linux),
 * symlinks copied verbatim (the `.bin` links and npm workspace links are
 * relative, so they resolve inside the copy), modes and times preserved.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
 * import { equal } from "node:assert/strict";
 * import { copyDirectory } from "./copy_dir.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-"));
 * mkdirSync(`${dir}/a/.bin`, { recursive: true });
 * writeFileSync(`${dir}/a/x.js`, "x");
 * symlinkSync("../x.js", `${dir}/a/.bin/x`);
 * await copyDirectory(`${dir}/a`, `${dir}/b`);
 * equal(readFileSync(`${dir}/b/.bin/x`, "utf8"), "x");
 * equal(readlinkSync(`${dir}/b/.bin/x`), "../x.js");
 * rmSync(dir, { recursive: true, force: true });
 * ```
 */
export async function copyDirectory(source: string, dest: string): Promise<void> {
  if (process.platform === "linux") {
    await mkdir(dest);
    const r = await runProcess({
      argv: ["cp", "-a", "--reflink=auto", "--", `${source}/.`, dest],
      cwd: "/",
      timeoutMs: 600_000,
    });
    if (r.exitCode === 0 && r.spawnError === null) return;
    if (r.spawnError === null) {
      throw new DependencyCopyError(
        `Cannot copy dependencies ${source}: ${
          (r.stderr.head || `cp exited ${r.exitCode}`).trim()
        }`,
      );
    }
    // No usable `cp`: fall through to the portable copy.
    await rm(dest, { recursive: true });
  }
  try {
    await cp(source, dest, {
      recursive: true,
      verbatimSymlinks: true,
      preserveTimestamps: true,
      mode: constants.COPYFILE_FICLONE,
    });
  } catch (error) {
    throw new DependencyCopyError(`Cannot copy dependencies ${source}: ${String(error)}`);
  }
}
