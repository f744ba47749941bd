/**
 * The resumable verdict store of a batch: one `results/<key>.json` per judged
 * resume key, written atomically (temporary file, then rename), so a rerun, a
 * crash or a parallel writer never sees half a verdict. Each file carries
 * `seal`, the fleet key's MAC over the verdict: a file that does not validate
 * or whose seal does not verify (hand-edited, or of another key) counts as
 * absent, and the candidate is judged again.
 *
 * @module
 */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { MacKey } from "../keys/mac_key.ts";
import { checkStoredVerdict, storedVerdictMac } from "./fleet_seal.ts";
import { type KeyVerdict, keyVerdictSchema } from "./schema.ts";

/** The verdict store under an output directory. */
export class VerdictStore {
  readonly #dir: string;
  readonly #key: MacKey;

  /** A store in `<outDir>/results`, sealed with `key` (the fleet key). */
  constructor(outDir: string, key: MacKey) {
    this.#dir = join(outDir, "results");
    this.#key = key;
  }

  /**
   * The stored verdict for `key`, or `null`.
   *
   * @example
   * ```ts
   * import { join } from "node:path";
   * import { tmpdir } from "node:os";
   * import { mkdtempSync } from "node:fs";
   * import { equal } from "node:assert/strict";
   * import { importMacKey } from "../keys/mac_key.ts";
   * import { VerdictStore } from "./store.ts";
   * const key = await importMacKey(new Uint8Array(32), "memory");
   * equal(await new VerdictStore(mkdtempSync(join(tmpdir(), "vouch-")), key).get("ab"), null);
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
      const { seal, ...rest } = JSON.parse(text);
      const r = keyVerdictSchema.safeParse(rest);
      if (!r.success || r.data.key !== key) return null;
      return await checkStoredVerdict(this.#key, r.data, seal) ? r.data : null;
    } catch {
      return null;
    }
  }

  /** Stores a verdict atomically, sealed. */
  async put(verdict: KeyVerdict): Promise<void> {
    await mkdir(this.#dir, { recursive: true });
    const path = join(this.#dir, `${verdict.key}.json`);
    const tmp = `${path}.${crypto.randomUUID()}.tmp`;
    const seal = await storedVerdictMac(this.#key, verdict);
    await writeFile(tmp, JSON.stringify({ ...verdict, seal }, null, 2) + "\n");
    await rename(tmp, path);
  }
}
