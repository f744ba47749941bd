/**
 * Redaction of vouch's own key material from anything a child printed: the
 * key store is never mounted in a sandbox, but under `--sandbox none` a check
 * can read and print a key file, and its output reaches evidence, the event
 * log and `--json`. Every key vouch loads is remembered here (its stored
 * base64 and the raw bytes' hex, base64 and base64url), and the key directory
 * of this environment is scanned once, so captured output never carries them.
 */
import { readdirSync, readFileSync } from "node:fs";
import process from "node:process";
import { Buffer } from "node:buffer";
import { join } from "node:path";
import { keyDirectory, processKeyEnv } from "./paths.ts";

/** What replaces key material in captured output. */
export const KEY_REDACTION = "[redacted:vouch_key]";

const known = new Set<string>();
let scanned = false;

function addForms(stored: string): void {
  if (stored.length < 16) return;
  known.add(stored);
  const raw = Buffer.from(stored, "base64");
  if (raw.length < 16) return;
  known.add(raw.toString("hex"));
  known.add(raw.toString("base64url"));
}

/**
 * Remembers a key's stored (base64) form so output containing it is redacted.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { KEY_REDACTION, redactKeyMaterial, rememberKeyMaterial } from "./key_material.ts";
 * rememberKeyMaterial("c2VjcmV0LWtleS1ieXRlcy0wMTIzNDU2Nzg5");
 * equal(redactKeyMaterial("k=c2VjcmV0LWtleS1ieXRlcy0wMTIzNDU2Nzg5"), `k=${KEY_REDACTION}`);
 * ```
 */
export function rememberKeyMaterial(...stored: readonly string[]): void {
  for (const s of stored) addForms(s);
}

function scanKeyDirectory(): void {
  scanned = true;
  let dir: string;
  try {
    dir = keyDirectory(processKeyEnv());
  } catch {
    return;
  }
  let files: string[] = [];
  try {
    files = [...readdirSync(dir, { withFileTypes: true })].filter((e) =>
      e.isFile() && e.name.endsWith(".json")
    )
      .map((e) => join(dir, e.name));
  } catch {
    // no key directory yet
  }
  let override: string | undefined;
  try {
    override = process.env["VOUCH_KEY_FILE"];
  } catch {
    override = undefined;
  }
  if (override !== undefined) files.push(override);
  for (const file of files) {
    try {
      const value = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
      for (const field of ["key", "pkcs8"]) {
        const v = value[field];
        if (typeof v === "string") addForms(v);
      }
    } catch {
      // unreadable or not a key file
    }
  }
}

/**
 * Replaces every known key form in `text` with {@linkcode KEY_REDACTION}.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { redactKeyMaterial } from "./key_material.ts";
 * equal(redactKeyMaterial("nothing secret"), "nothing secret");
 * ```
 */
export function redactKeyMaterial(text: string): string {
  if (!scanned) scanKeyDirectory();
  if (known.size === 0 || text.length < 16) return text;
  let out = text;
  for (const k of known) if (out.includes(k)) out = out.replaceAll(k, KEY_REDACTION);
  return out;
}
