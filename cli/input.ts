/**
 * Reading a command's input file, or standard input for `-` (Deno and Node).
 *
 * @module
 */
import { readFile } from "node:fs/promises";
import process from "node:process";
import { concatBytes } from "../adapters/bytes/concat.ts";

/**
 * The bytes of `path`, or of standard input until its end when `path` is `-`.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { equal } from "node:assert/strict";
 * import { readInput } from "./input.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-"));
 * writeFileSync(`${dir}/p`, "x");
 * equal((await readInput(`${dir}/p`)).length, 1);
 * rmSync(dir, { recursive: true, force: true });
 * ```
 */
export async function readInput(path: string): Promise<Uint8Array> {
  if (path !== "-") return new Uint8Array(await readFile(path));
  const chunks: Uint8Array[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Uint8Array);
  return concatBytes(chunks);
}
