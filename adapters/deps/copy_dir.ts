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
 * import { equal } from "node:assert/strict";
 * import { copyDirectory } from "./copy_dir.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.mkdir(`${dir}/a/.bin`, { recursive: true });
 * await Deno.writeTextFile(`${dir}/a/x.js`, "x");
 * await Deno.symlink("../x.js", `${dir}/a/.bin/x`);
 * await copyDirectory(`${dir}/a`, `${dir}/b`);
 * equal(await Deno.readTextFile(`${dir}/b/.bin/x`), "x");
 * equal(await Deno.readLink(`${dir}/b/.bin/x`), "../x.js");
 * await Deno.remove(dir, { recursive: true });
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
