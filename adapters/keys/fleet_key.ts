/**
 * The fleet key: one HMAC-SHA-256 key that a batch coordinator, its queue
 * workers and `vouch batch merge` share. It signs every queue job, every
 * verdict a worker returns and every batch report, so what comes back through
 * Redis (or a CI artefact) counts only when it was written by a holder of the
 * key. It lives in the same key store as the receipt keys
 * (`$XDG_STATE_HOME/vouch/keys/fleet.hmac.json`, mode 0600) or in the file
 * `--fleet-key FILE` names (copy it to every worker, e.g. from a CI secret);
 * it never travels through Redis.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { join } from "node:path";
import { z } from "zod";
import { KeyError } from "./errors.ts";
import { loadOrCreateKeyFile } from "./key_file.ts";
import { rememberKeyMaterial } from "./key_material.ts";
import { importMacKey, type MacKey } from "./mac_key.ts";
import { keyDirectory, type KeyEnv, processKeyEnv } from "./paths.ts";

/** Options of {@linkcode loadFleetKey}. */
export interface FleetKeyOptions {
  /** The key file (`--fleet-key FILE`); default `fleet.hmac.json` in the key store. */
  readonly file?: string | undefined;
  /** Environment to read (`XDG_STATE_HOME`, `HOME`). @default the process env */
  readonly env?: KeyEnv;
  /** Create the key when missing (a coordinator may, a worker or a merge must not). @default false */
  readonly create?: boolean;
}

const fleetKeyFileSchema = z.lazy(() =>
  z.strictObject({
    v: z.literal(1),
    type: z.literal("vouch-fleet-hmac-sha256"),
    created: z.string(),
    key: z.string().regex(/^[A-Za-z0-9+/]{43}=$/),
  })
);

/**
 * Where the fleet key lives: `file` when given, else `fleet.hmac.json` in the key store.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { fleetKeyPath } from "./fleet_key.ts";
 * equal(fleetKeyPath({ env: { XDG_STATE_HOME: "/s" } }), "/s/vouch/keys/fleet.hmac.json");
 * equal(fleetKeyPath({ file: "/k.json", env: {} }), "/k.json");
 * ```
 */
export function fleetKeyPath(options: FleetKeyOptions = {}): string {
  if (options.file !== undefined) return options.file;
  return join(keyDirectory(options.env ?? processKeyEnv()), "fleet.hmac.json");
}

/**
 * Loads the fleet key (creating it, 32 random bytes in a 0600 file, only when
 * `create` is set). A missing key is a `KeyError` `fleet_key_missing` that
 * names the file.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdtempSync, rmSync } from "node:fs";
 * import { equal, rejects } from "node:assert/strict";
 * import { loadFleetKey } from "./fleet_key.ts";
 * const state = mkdtempSync(join(tmpdir(), "vouch-"));
 * const env = { XDG_STATE_HOME: state };
 * await rejects(loadFleetKey({ env }), { code: "fleet_key_missing" });
 * const a = await loadFleetKey({ env, create: true });
 * equal((await loadFleetKey({ env })).keyId, a.keyId);
 * rmSync(state, { recursive: true, force: true });
 * ```
 */
export async function loadFleetKey(options: FleetKeyOptions = {}): Promise<MacKey> {
  const path = fleetKeyPath(options);
  const parsed = await loadOrCreateKeyFile(path, {
    name: "the fleet key",
    kind: "a vouch fleet key",
    type: "vouch-fleet-hmac-sha256",
    schema: fleetKeyFileSchema,
    fresh: () => {
      if (options.create !== true) {
        throw new KeyError(
          "fleet_key_missing",
          `Cannot load the fleet key: ${path} does not exist (copy the coordinator's fleet key there, or pass --fleet-key FILE)`,
        );
      }
      return { key: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64") };
    },
  });
  rememberKeyMaterial(parsed.key);
  return await importMacKey(new Uint8Array(Buffer.from(parsed.key, "base64")), path);
}

/**
 * HMAC-SHA-256 of `domain` followed by `text`, as 64 hex digits.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { fleetMac, verifyFleetMac } from "./fleet_key.ts";
 * import { importMacKey } from "./mac_key.ts";
 * const key = await importMacKey(new Uint8Array(32).fill(1), "memory");
 * const mac = await fleetMac(key, "d\n", "x");
 * equal(await verifyFleetMac(key, "d\n", "x", mac), true);
 * equal(await verifyFleetMac(key, "d\n", "y", mac), false);
 * ```
 */
export async function fleetMac(key: MacKey, domain: string, text: string): Promise<string> {
  const sig = await crypto.subtle.sign(
    "HMAC",
    key.cryptoKey,
    new TextEncoder().encode(domain + text),
  );
  return Buffer.from(sig).toString("hex");
}

/** Checks a {@linkcode fleetMac} in constant time (false for anything malformed). */
export async function verifyFleetMac(
  key: MacKey,
  domain: string,
  text: string,
  mac: unknown,
): Promise<boolean> {
  if (typeof mac !== "string" || !/^[0-9a-f]{64}$/.test(mac)) return false;
  return await crypto.subtle.verify(
    "HMAC",
    key.cryptoKey,
    new Uint8Array(Buffer.from(mac, "hex")),
    new TextEncoder().encode(domain + text),
  );
}
