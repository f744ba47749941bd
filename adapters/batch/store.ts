/**
 * The resumable verdict store of a batch: one `results/<key>.json` per judged
 * resume key, written atomically (temporary file, then rename), so a rerun, a
 * crash or a parallel writer never sees half a verdict. A file that does not
 * validate counts as absent (the candidate is judged again).
 *
 * @module
 */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type KeyVerdict, keyVerdictSchema } from "./schema.ts";

/** The verdict store under an output directory. */
export class VerdictStore {
  readonly #dir: string;

  /** A store in `<outDir>/results`. */
  constructor(outDir: string) {
    this.#dir = join(outDir, "results");
  }

  /**
   * The stored verdict for `key`, or `null`.
   *
   * @example
   * ```ts
   * import { equal } from "node:assert/strict";
   * import { VerdictStore } from "./store.ts";
   * equal(await new VerdictStore(Deno.makeTempDirSync()).get("ab"), null);
   * ```
   */
  async get(key: string): Promise<KeyVerdict | null> {
    let text: string;
    try {
      text = await readFile(join(this.#dir, `${key}.json`), "utf8");
    } catch {
      return null;
    }
    try {
      const r = keyVerdictSchema.safeParse(JSON.parse(text));
      return r.success && r.data.key === key ? r.data : null;
    } catch {
      return null;
    }
  }

  /** Stores a verdict atomically. */
  async put(verdict: KeyVerdict): Promise<void> {
    await mkdir(this.#dir, { recursive: true });
    const path = join(this.#dir, `${verdict.key}.json`);
    const tmp = `${path}.${crypto.randomUUID()}.tmp`;
    await writeFile(tmp, JSON.stringify(verdict, null, 2) + "\n");
    await rename(tmp, path);
  }
}
