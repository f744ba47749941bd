import { Buffer } from "node:buffer";
import { join } from "node:path";
import { z } from "zod";
import { sha256Hex } from "../digest/sha256.ts";
import { errorReason } from "../text/mod.ts";
import { KeyError } from "./errors.ts";
import { loadOrCreateKeyFile } from "./key_file.ts";
import { rememberKeyMaterial } from "./key_material.ts";
import { keyDirectory, type KeyEnv, processKeyEnv, repositoryKeyId } from "./paths.ts";

/** An Ed25519 key pair for signing attestations. */
export interface SigningKey {
  /** `sha256` hex of the public key's SPKI DER: the DSSE `keyid`. */
  readonly keyId: string;
  /** Private key (WebCrypto, non-extractable once loaded). */
  readonly privateKey: CryptoKey;
  /** Public key. */
  readonly publicKey: CryptoKey;
  /** The public key as an SPKI PEM block, to hand to verifiers. */
  readonly publicKeyPem: string;
  /** Where the key lives (empty for in-memory keys). */
  readonly path: string;
}

/** A public key loaded for verification. */
export interface PublicKey {
  /** `sha256` hex of the SPKI DER. */
  readonly keyId: string;
  /** The WebCrypto key. */
  readonly cryptoKey: CryptoKey;
}

const SigningFileSchema = z.lazy(() =>
  z.strictObject({
    v: z.literal(1),
    type: z.literal("vouch-ed25519"),
    created: z.string(),
    repo: z.string(),
    pkcs8: z.string().regex(/^[A-Za-z0-9+/=]+$/),
    spki: z.string().regex(/^[A-Za-z0-9+/=]+$/),
  })
);

function pem(der: Uint8Array): string {
  const b64 = Buffer.from(der).toString("base64");
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN PUBLIC KEY-----\n${lines.join("\n")}\n-----END PUBLIC KEY-----\n`;
}

function keyIdOf(spki: Uint8Array): string {
  return sha256Hex(spki).slice("sha256:".length);
}

async function fromDer(pkcs8: Uint8Array, spki: Uint8Array, path: string): Promise<SigningKey> {
  const privateKey = await crypto.subtle.importKey(
    "pkcs8",
    new Uint8Array(pkcs8),
    { name: "Ed25519" },
    false,
    ["sign"],
  );
  const publicKey = await crypto.subtle.importKey(
    "spki",
    new Uint8Array(spki),
    { name: "Ed25519" },
    true,
    ["verify"],
  );
  return { keyId: keyIdOf(spki), privateKey, publicKey, publicKeyPem: pem(spki), path };
}

/**
 * Generates a fresh in-memory Ed25519 signing key.
 *
 * @example
 * ```ts
 * import { generateSigningKey } from "./signing_key.ts";
 * const key = await generateSigningKey();
 * if (!key.publicKeyPem.startsWith("-----BEGIN PUBLIC KEY-----")) throw new Error();
 * ```
 */
export async function generateSigningKey(): Promise<SigningKey> {
  const pair = await crypto.subtle.generateKey({ name: "Ed25519" }, true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  const spki = new Uint8Array(await crypto.subtle.exportKey("spki", pair.publicKey));
  return await fromDer(pkcs8, spki, "");
}

/** Path of a repository's attestation signing key. */
export function signingKeyPath(repoRoot: string, env: KeyEnv): string {
  return join(keyDirectory(env), `${repositoryKeyId(repoRoot)}.ed25519.json`);
}

/**
 * Loads the repository's Ed25519 attestation key from the state directory,
 * creating it (mode 0600) on first use.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdtempSync, rmSync } from "node:fs";
 * import { loadOrCreateSigningKey } from "./signing_key.ts";
 * const state = mkdtempSync(join(tmpdir(), "vouch-"));
 * const repo = mkdtempSync(join(tmpdir(), "vouch-"));
 * const a = await loadOrCreateSigningKey({ repoRoot: repo, env: { XDG_STATE_HOME: state } });
 * const b = await loadOrCreateSigningKey({ repoRoot: repo, env: { XDG_STATE_HOME: state } });
 * if (a.keyId !== b.keyId) throw new Error();
 * rmSync(state, { recursive: true, force: true });
 * rmSync(repo, { recursive: true, force: true });
 * ```
 */
export async function loadOrCreateSigningKey(
  options: { readonly repoRoot: string; readonly env?: KeyEnv },
): Promise<SigningKey> {
  const env = options.env ?? processKeyEnv();
  const path = signingKeyPath(options.repoRoot, env);
  const file = {
    name: "signing key",
    kind: "a vouch Ed25519 key",
    type: "vouch-ed25519",
    repoRoot: options.repoRoot,
    schema: SigningFileSchema,
    fresh: async () => {
      const pair = await crypto.subtle.generateKey({ name: "Ed25519" }, true, [
        "sign",
        "verify",
      ]) as CryptoKeyPair;
      const der = async (format: "pkcs8" | "spki", key: CryptoKey) =>
        Buffer.from(await crypto.subtle.exportKey(format, key)).toString("base64");
      return {
        pkcs8: await der("pkcs8", pair.privateKey),
        spki: await der("spki", pair.publicKey),
      };
    },
  };
  const parsed = await loadOrCreateKeyFile(path, file);
  try {
    rememberKeyMaterial(parsed.pkcs8);
    return await fromDer(
      new Uint8Array(Buffer.from(parsed.pkcs8, "base64")),
      new Uint8Array(Buffer.from(parsed.spki, "base64")),
      path,
    );
  } catch (cause) {
    throw new KeyError("corrupt", `Cannot load ${file.name} ${path}: not ${file.kind}`, { cause });
  }
}

/**
 * Reads an Ed25519 public key from SPKI PEM text (what `vouch attest pubkey`
 * prints) or a JWK (`{"kty":"OKP","crv":"Ed25519","x":...}`).
 *
 * @example
 * ```ts
 * import { generateSigningKey, importPublicKey } from "./signing_key.ts";
 * const key = await generateSigningKey();
 * const pub = await importPublicKey(key.publicKeyPem);
 * if (pub.keyId !== key.keyId) throw new Error();
 * ```
 */
export async function importPublicKey(text: string): Promise<PublicKey> {
  const trimmed = text.trim();
  try {
    if (trimmed.startsWith("{")) {
      const jwk = JSON.parse(trimmed) as JsonWebKey;
      if (jwk.kty !== "OKP" || jwk.crv !== "Ed25519" || typeof jwk.x !== "string") {
        throw new Error("not an Ed25519 JWK");
      }
      const cryptoKey = await crypto.subtle.importKey(
        "jwk",
        { kty: "OKP", crv: "Ed25519", x: jwk.x },
        { name: "Ed25519" },
        true,
        ["verify"],
      );
      const spki = new Uint8Array(await crypto.subtle.exportKey("spki", cryptoKey));
      return { keyId: keyIdOf(spki), cryptoKey };
    }
    const m = /^-----BEGIN PUBLIC KEY-----([A-Za-z0-9+/=\s]+)-----END PUBLIC KEY-----$/.exec(
      trimmed,
    );
    if (!m) throw new Error("not an SPKI PEM block");
    const spki = new Uint8Array(Buffer.from(m[1]!.replace(/\s+/g, ""), "base64"));
    const cryptoKey = await crypto.subtle.importKey("spki", spki, { name: "Ed25519" }, true, [
      "verify",
    ]);
    return { keyId: keyIdOf(spki), cryptoKey };
  } catch (cause) {
    throw new KeyError("bad_public_key", `Cannot read public key: ${errorReason(cause)}`, {
      cause,
    });
  }
}
