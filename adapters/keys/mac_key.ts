import { Buffer } from "node:buffer";
import { join } from "node:path";
import { z } from "zod";
import { sha256Hex } from "../digest/sha256.ts";
import { KeyError } from "./errors.ts";
import { loadOrCreateKeyFile } from "./key_file.ts";
import { rememberKeyMaterial } from "./key_material.ts";
import { keyDirectory, type KeyEnv, processKeyEnv, repositoryKeyId } from "./paths.ts";

/** A loaded HMAC-SHA-256 key. The raw bytes never leave this module. */
export interface MacKey {
  /** Public identifier of the key (`hmac-sha256:<16 hex>`), stored in receipts. */
  readonly keyId: string;
  /** Non-extractable WebCrypto key usable for `sign` and `verify`. */
  readonly cryptoKey: CryptoKey;
  /** Where the key lives (for diagnostics). */
  readonly path: string;
}

/** Options for {@linkcode loadOrCreateMacKey}. */
export interface MacKeyOptions {
  /**
   * The repository the key belongs to; `null`: no repository (a log kept outside every
   * repository), whose key only `VOUCH_KEY_FILE` can name.
   */
  readonly repoRoot: string | null;
  /** Environment to read (`VOUCH_KEY_FILE`, `XDG_STATE_HOME`, `HOME`). @default the process env */
  readonly env?: KeyEnv;
  /** Create the key when missing. @default true */
  readonly create?: boolean;
}

const KeyFileSchema = z.lazy(() =>
  z.strictObject({
    v: z.literal(1),
    type: z.literal("vouch-hmac-sha256"),
    created: z.string(),
    repo: z.string(),
    key: z.string().regex(/^[A-Za-z0-9+/]{43}=$/),
  })
);

/** Path of the MAC key for a repository (`VOUCH_KEY_FILE` wins; it alone names no repository's). */
export function macKeyPath(repoRoot: string | null, env: KeyEnv): string {
  if (env.VOUCH_KEY_FILE) return env.VOUCH_KEY_FILE;
  if (repoRoot === null) {
    throw new KeyError("io", "Cannot locate the MAC key: no repository, and no key file is named");
  }
  return join(keyDirectory(env), `${repositoryKeyId(repoRoot)}.hmac.json`);
}

/**
 * Imports raw key bytes as a MAC key (for tests and embedders that manage keys).
 *
 * @example
 * ```ts
 * import { importMacKey } from "./mac_key.ts";
 * const key = await importMacKey(new Uint8Array(32).fill(7), "memory");
 * if (!key.keyId.startsWith("hmac-sha256:")) throw new Error();
 * ```
 */
export async function importMacKey(raw: Uint8Array, path: string): Promise<MacKey> {
  const cryptoKey = await crypto.subtle.importKey(
    "raw",
    new Uint8Array(raw),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign", "verify"],
  );
  const id = sha256Hex(new Uint8Array([...new TextEncoder().encode("vouch.keyid.v1\n"), ...raw]));
  return { keyId: `hmac-sha256:${id.slice(7, 23)}`, cryptoKey, path };
}

/**
 * Loads the repository's receipt MAC key, creating it (32 random bytes, file
 * mode 0600 in a 0700 directory) on first use. The key lives in the user's state
 * directory, never inside the repository, and is never put in a child process's
 * environment; it persists so receipts can be re-verified after vouch exits.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdtempSync, rmSync } from "node:fs";
 * import { loadOrCreateMacKey } from "./mac_key.ts";
 * const state = mkdtempSync(join(tmpdir(), "vouch-"));
 * const repo = mkdtempSync(join(tmpdir(), "vouch-"));
 * const a = await loadOrCreateMacKey({ repoRoot: repo, env: { XDG_STATE_HOME: state } });
 * const b = await loadOrCreateMacKey({ repoRoot: repo, env: { XDG_STATE_HOME: state } });
 * if (a.keyId !== b.keyId) throw new Error("key not persisted");
 * rmSync(state, { recursive: true, force: true });
 * rmSync(repo, { recursive: true, force: true });
 * ```
 */
export async function loadOrCreateMacKey(options: MacKeyOptions): Promise<MacKey> {
  const env = options.env ?? processKeyEnv();
  const path = macKeyPath(options.repoRoot, env);
  const parsed = await loadOrCreateKeyFile(path, {
    name: "MAC key",
    kind: "a vouch HMAC key file",
    type: "vouch-hmac-sha256",
    ...(options.repoRoot !== null ? { repoRoot: options.repoRoot } : {}),
    schema: KeyFileSchema,
    fresh: () => {
      if (options.create === false) {
        throw new KeyError("io", `Cannot load MAC key: ${path} does not exist`);
      }
      return {
        key: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64"),
      };
    },
  });
  rememberKeyMaterial(parsed.key);
  return await importMacKey(new Uint8Array(Buffer.from(parsed.key, "base64")), path);
}
