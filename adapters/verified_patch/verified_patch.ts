import { Buffer } from "node:buffer";
import { z } from "zod";
import { toHex } from "../../kernel/digest.ts";
import { canonicalJson } from "../canonical_json/canonical_json.ts";
import { sha256Hex } from "../digest/sha256.ts";
import type { MacKey } from "../keys/mac_key.ts";
import { ReceiptError } from "../receipts/errors.ts";
import {
  receiptDigest,
  type ToolReceipt,
  ToolReceiptSchema,
  verifyReceiptMac,
} from "../receipts/receipt.ts";
import { VerifiedPatchError } from "./errors.ts";
import type { MintInput, PatchCheckEvidence, VerifiedPatchJson } from "./types.ts";
import type { LogHead } from "../log/record.ts";

/** Domain prefix of the verified-patch MAC input. */
export const VERIFIED_PATCH_MAC_DOMAIN = "vouch.verified_patch.mac.v1\n";

export type { MintInput, PatchCheckEvidence, UnverifiedPatch, VerifiedPatchJson } from "./types.ts";

type Sealed = Omit<VerifiedPatchJson, "mac">;

let readSealed: (patch: VerifiedPatch) => Sealed;
const MINT: unique symbol = Symbol("vouch.verified_patch.mint");
const encoder = new TextEncoder();

function macInput(body: Sealed): Uint8Array<ArrayBuffer> {
  return encoder.encode(VERIFIED_PATCH_MAC_DOMAIN + canonicalJson(body));
}

function hexBytes(hex: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(hex.length >>> 1);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/**
 * A patch that passed its outcome contract. Only {@linkcode mintVerifiedPatch}
 * can create one (module-private constructor token); it carries a MAC that
 * {@linkcode assertVerifiedPatch} re-checks before any consequential use. A plain
 * object with the same fields, a JSON-parsed copy or a cast is not one: the
 * private `#diff` field makes the type nominal and the run-time brand check fail.
 *
 * @example A look-alike is not a VerifiedPatch (the root module's example mints a real one)
 * ```ts
 * import { equal, ok } from "node:assert/strict";
 * import { assertVerifiedPatch, VerifiedPatch } from "./verified_patch.ts";
 * import { importMacKey } from "../keys/mac_key.ts";
 * const lookalike = { task: "t", patchDigest: "sha256:00", diff: new Uint8Array() };
 * ok(!((lookalike as unknown) instanceof VerifiedPatch));
 * const key = await importMacKey(new Uint8Array(32).fill(7), "memory");
 * const refused = await assertVerifiedPatch(lookalike, key).catch((e: unknown) => e);
 * equal((refused as { code?: string }).code, "forged");
 * ```
 */
export class VerifiedPatch {
  readonly #diff: Uint8Array;
  readonly #sealed: Sealed;
  /** The task. */
  readonly task: string;
  /** The revision the patch applies to. */
  readonly baseRevision: string;
  /** `sha256:` of the diff bytes. */
  readonly patchDigest: string;
  /** `sha256:` of the contract that was run. */
  readonly contractDigest: string;
  /** Evidence per check. */
  readonly checks: readonly PatchCheckEvidence[];
  /** Receipts of the verification commands. */
  readonly receipts: readonly ToolReceipt[];
  /** When verification passed, ms since epoch. */
  readonly passedAt: number;
  /** Backend provenance. */
  readonly backend: string;
  /** Sandbox profile of the checks. */
  readonly sandboxProfile: string;
  /** Log head at mint time. */
  readonly logAnchor: LogHead;
  /** The MAC key id. */
  readonly keyId: string;
  /** HMAC-SHA-256 hex of the sealed fields. */
  readonly mac: string;

  /** Not callable from outside this module: the token is module-private. */
  constructor(token: never, sealed: Sealed, mac: string, diff: Uint8Array) {
    if ((token as unknown) !== MINT) {
      throw new VerifiedPatchError(
        "forged",
        "Cannot construct VerifiedPatch: only mintVerifiedPatch can",
      );
    }
    this.#diff = diff.slice();
    this.#sealed = sealed;
    this.task = sealed.task;
    this.baseRevision = sealed.baseRevision;
    this.patchDigest = sealed.patchDigest;
    this.contractDigest = sealed.contractDigest;
    this.checks = sealed.checks;
    this.receipts = sealed.receipts;
    this.passedAt = sealed.passedAt;
    this.backend = sealed.backend;
    this.sandboxProfile = sealed.sandboxProfile;
    this.logAnchor = sealed.logAnchor;
    this.keyId = sealed.keyId;
    this.mac = mac;
    Object.freeze(this);
  }

  /** A copy of the verified diff bytes. */
  get diff(): Uint8Array {
    return this.#diff.slice();
  }

  /** Whether `value` was constructed by this module (brand check, not structural). */
  static isVerifiedPatch(value: unknown): value is VerifiedPatch {
    return typeof value === "object" && value !== null && #diff in value;
  }

  /** The JSON form (without the diff bytes, which are stored separately). */
  toJSON(): VerifiedPatchJson {
    return { ...this.#sealed, mac: this.mac };
  }

  static {
    readSealed = (patch) => patch.#sealed;
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;

/**
 * Mints a `VerifiedPatch`: fails closed unless there is at least one check,
 * every check passed, every check cites a receipt among `receipts`, and every
 * receipt verifies under `key`. Then seals all fields with the key.
 *
 * @example
 * ```ts
 * import { importMacKey } from "../keys/mac_key.ts";
 * import { mintReceipt, receiptDigest } from "../receipts/receipt.ts";
 * import { assertVerifiedPatch, mintVerifiedPatch } from "./verified_patch.ts";
 * const key = await importMacKey(new Uint8Array(32).fill(3), "memory");
 * const z = { digest: "sha256:" + "0".repeat(64), bytes: 0 };
 * const receipt = await mintReceipt(key, {
 *   task: "t1", tool: "check:unit", argv: ["true"], cwd: "/", sandboxProfile: "none",
 *   envNames: [], startedAt: 0, endedAt: 1, exit: { code: 0, signal: null, timedOut: false },
 *   stdout: z, stderr: z,
 * }, { anchor: { seq: 0, hash: "0".repeat(64) }, prevReceipt: "0".repeat(64) });
 * const patch = await mintVerifiedPatch(key, {
 *   patch: { kind: "unverified_patch", task: "t1", baseRevision: "abc", diff: new Uint8Array([1]), backend: "fn" },
 *   contractDigest: "sha256:" + "1".repeat(64),
 *   checks: [{ id: "unit", outcome: "pass", receipt: receiptDigest(receipt) }],
 *   receipts: [receipt], passedAt: 5, sandboxProfile: "none",
 *   logAnchor: { seq: 0, hash: "0".repeat(64) },
 * });
 * await assertVerifiedPatch(patch, key);
 * ```
 */
export async function mintVerifiedPatch(key: MacKey, input: MintInput): Promise<VerifiedPatch> {
  const { patch } = input;
  if (patch?.kind !== "unverified_patch" || !(patch.diff instanceof Uint8Array)) {
    throw new VerifiedPatchError("invalid_input", "Cannot mint VerifiedPatch: no patch");
  }
  if (!DIGEST.test(input.contractDigest)) {
    throw new VerifiedPatchError("invalid_input", "Cannot mint VerifiedPatch: bad contract digest");
  }
  if (!Number.isSafeInteger(input.passedAt) || input.passedAt < 0) {
    throw new VerifiedPatchError("invalid_input", "Cannot mint VerifiedPatch: bad passedAt");
  }
  if (input.checks.length === 0) {
    throw new VerifiedPatchError(
      "checks_failed",
      "Cannot mint VerifiedPatch: a contract with no checks verifies nothing",
    );
  }
  const failed = input.checks.filter((c) => c.outcome !== "pass");
  if (failed.length > 0) {
    throw new VerifiedPatchError(
      "checks_failed",
      `Cannot mint VerifiedPatch: checks did not pass: ${
        failed.map((c) => `${c.id}=${c.outcome}`).join(", ")
      }`,
    );
  }
  const digests = new Set<string>();
  for (const receipt of input.receipts) {
    try {
      await verifyReceiptMac(receipt, key);
    } catch (error) {
      if (error instanceof ReceiptError) {
        throw new VerifiedPatchError("bad_receipt", `Cannot mint VerifiedPatch: ${error.message}`, {
          cause: error,
        });
      }
      throw error;
    }
    if (receipt.task !== patch.task) {
      throw new VerifiedPatchError(
        "bad_receipt",
        `Cannot mint VerifiedPatch: receipt of task ${receipt.task} cited for task ${patch.task}`,
      );
    }
    digests.add(receiptDigest(receipt));
  }
  for (const check of input.checks) {
    if (!digests.has(check.receipt)) {
      throw new VerifiedPatchError(
        "bad_receipt",
        `Cannot mint VerifiedPatch: check ${check.id} cites no known receipt`,
      );
    }
  }
  const sealed: Sealed = deepFreeze({
    v: 1,
    task: patch.task,
    baseRevision: patch.baseRevision,
    patchDigest: sha256Hex(patch.diff),
    contractDigest: input.contractDigest,
    checks: input.checks.map((c) => ({ id: c.id, outcome: c.outcome, receipt: c.receipt })),
    receipts: input.receipts.map((r) => JSON.parse(canonicalJson(r)) as ToolReceipt),
    passedAt: input.passedAt,
    backend: patch.backend,
    sandboxProfile: input.sandboxProfile,
    logAnchor: { seq: input.logAnchor.seq, hash: input.logAnchor.hash },
    ...(input.pathPolicy === undefined ? {} : {
      pathPolicy: JSON.parse(canonicalJson(input.pathPolicy)) as
        & VerifiedPatchJson["pathPolicy"]
        & object,
    }),
    keyId: key.keyId,
  });
  const mac = toHex(
    new Uint8Array(await crypto.subtle.sign("HMAC", key.cryptoKey, macInput(sealed))),
  );
  return new VerifiedPatch(MINT as never, sealed, mac, patch.diff);
}

/**
 * The run-time gate: throws unless `value` is a `VerifiedPatch` minted by this
 * module whose MAC verifies under `key` (constant-time WebCrypto verify) and
 * whose diff bytes still match its digest; resolves to the same patch. Call
 * before any consequential use.
 *
 * @example
 * ```ts
 * import { importMacKey } from "../keys/mac_key.ts";
 * import { assertVerifiedPatch } from "./verified_patch.ts";
 * const key = await importMacKey(new Uint8Array(32), "memory");
 * const forged = { task: "t1", mac: "00" };
 * let code = "";
 * try { await assertVerifiedPatch(forged, key); } catch (e) { code = (e as { code: string }).code; }
 * if (code !== "forged") throw new Error(code);
 * ```
 */
export async function assertVerifiedPatch(
  value: unknown,
  key: MacKey,
): Promise<VerifiedPatch> {
  if (!VerifiedPatch.isVerifiedPatch(value)) {
    throw new VerifiedPatchError(
      "forged",
      "Cannot accept patch: it is not a VerifiedPatch minted by the verifier",
    );
  }
  const sealed = readSealed(value);
  if (sealed.keyId !== key.keyId || !/^[0-9a-f]{64}$/.test(value.mac)) {
    throw new VerifiedPatchError("bad_mac", "Cannot accept patch: sealed with another key");
  }
  const ok = await crypto.subtle.verify(
    "HMAC",
    key.cryptoKey,
    hexBytes(value.mac),
    macInput(sealed),
  );
  if (!ok) throw new VerifiedPatchError("bad_mac", "Cannot accept patch: MAC mismatch");
  if (sha256Hex(value.diff) !== sealed.patchDigest) {
    throw new VerifiedPatchError("digest_mismatch", "Cannot accept patch: diff does not match");
  }
  return value;
}

const GLOBS = z.lazy(() => z.array(z.string().max(4096)).max(10_000));

/** zod schema of the JSON form of a verified patch read from outside (log record, run directory). */
export const VerifiedPatchJsonSchema = z.lazy(() =>
  z.strictObject({
    v: z.literal(1),
    task: z.string().min(1),
    baseRevision: z.string(),
    patchDigest: z.string().regex(DIGEST),
    contractDigest: z.string().regex(DIGEST),
    checks: z.array(z.strictObject({
      id: z.string(),
      outcome: z.enum(["pass", "fail", "inconclusive"]),
      receipt: z.string().regex(DIGEST),
    })),
    receipts: z.array(ToolReceiptSchema),
    passedAt: z.number().int().min(0),
    backend: z.string(),
    sandboxProfile: z.string(),
    logAnchor: z.strictObject({
      seq: z.number().int().min(0),
      hash: z.string().regex(/^[0-9a-f]{64}$/),
    }),
    pathPolicy: z.strictObject({ allow: GLOBS, forbid: GLOBS, protect: GLOBS }).optional(),
    keyId: z.string(),
    mac: z.string().regex(/^[0-9a-f]{64}$/),
  })
);

/**
 * Verifies the JSON form of a verified patch (from a log record or run
 * directory) under the key, without the diff bytes. Returns the validated JSON;
 * it is evidence, not a capability: it cannot be passed to `integrate`.
 *
 * @example
 * ```ts
 * import { equal, rejects } from "node:assert/strict";
 * import { importMacKey } from "../keys/mac_key.ts";
 * import { mintReceipt, receiptDigest } from "../receipts/receipt.ts";
 * import { mintVerifiedPatch } from "./verified_patch.ts";
 * const key = await importMacKey(new Uint8Array(32).fill(3), "memory");
 * const z = { digest: "sha256:" + "0".repeat(64), bytes: 0 };
 * const receipt = await mintReceipt(key, {
 *   task: "t1", tool: "check:unit", argv: ["true"], cwd: "/", sandboxProfile: "none",
 *   envNames: [], startedAt: 0, endedAt: 1, exit: { code: 0, signal: null, timedOut: false },
 *   stdout: z, stderr: z,
 * }, { anchor: { seq: 0, hash: "0".repeat(64) }, prevReceipt: "0".repeat(64) });
 * const verified = await mintVerifiedPatch(key, {
 *   patch: { kind: "unverified_patch", task: "t1", baseRevision: "abc", diff: new Uint8Array([1]), backend: "fn" },
 *   contractDigest: "sha256:" + "1".repeat(64),
 *   checks: [{ id: "unit", outcome: "pass", receipt: receiptDigest(receipt) }],
 *   receipts: [receipt], passedAt: 5, sandboxProfile: "none",
 *   logAnchor: { seq: 0, hash: "0".repeat(64) },
 * });
 * import { verifyVerifiedPatchJson } from "./verified_patch.ts";
 * const json = await verifyVerifiedPatchJson(JSON.parse(JSON.stringify(verified)), key);
 * equal(json.task, "t1");
 * await rejects(verifyVerifiedPatchJson({ ...json, passedAt: 6 }, key), { code: "bad_mac" });
 * ```
 */
export async function verifyVerifiedPatchJson(
  value: unknown,
  key: MacKey,
): Promise<VerifiedPatchJson> {
  const parsed = VerifiedPatchJsonSchema.safeParse(value);
  if (!parsed.success) {
    throw new VerifiedPatchError(
      "schema",
      `Cannot read verified patch: ${parsed.error.issues[0]?.path.join(".")}: ${
        parsed.error.issues[0]?.message
      }`,
    );
  }
  const { mac, ...sealed } = parsed.data;
  if (sealed.keyId !== key.keyId) {
    throw new VerifiedPatchError("bad_mac", "Cannot verify patch: sealed with another key");
  }
  const ok = await crypto.subtle.verify(
    "HMAC",
    key.cryptoKey,
    hexBytes(mac),
    macInput(sealed as Sealed),
  );
  if (!ok) throw new VerifiedPatchError("bad_mac", "Cannot verify patch: MAC mismatch");
  return parsed.data as VerifiedPatchJson;
}

/** Base64 of a verified patch's diff, for storing next to its JSON form. */
export function diffBase64(patch: VerifiedPatch): string {
  return Buffer.from(patch.diff).toString("base64");
}
