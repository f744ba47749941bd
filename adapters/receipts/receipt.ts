import { z } from "zod";
import { toHex } from "../../kernel/digest.ts";
import { canonicalJson } from "../canonical_json/canonical_json.ts";
import { nodeSha256, sha256Hex } from "../digest/sha256.ts";
import type { MacKey } from "../keys/mac_key.ts";
import { GENESIS_HASH, type LogHead } from "../log/record.ts";
import type { ProcessResult } from "../process/types.ts";
import { ReceiptError } from "./errors.ts";

/** Domain prefix of the receipt MAC input. */
export const RECEIPT_MAC_DOMAIN = "vouch.receipt.mac.v1\n";
/** Domain prefix of the receipt chain hash. */
export const RECEIPT_CHAIN_DOMAIN = "vouch.receipt.chain.v1\n";

/** Digest and size of one captured stream. */
export interface StreamDigest {
  /** `sha256:<hex>` of every byte. */
  readonly digest: string;
  /** Total byte count. */
  readonly bytes: number;
}

/** How a command ended. */
export interface ReceiptExit {
  /** Exit code (124 timeout, 128+n signal, 126/127 could not start). */
  readonly code: number;
  /** Terminating signal, if any. */
  readonly signal: string | null;
  /** Whether the timeout fired. */
  readonly timedOut: boolean;
}

/**
 * What a caller knows about a command it ran for a verdict: the body's fields
 * but the seal's (format, argv digest, anchor, chain, key), with the argv itself.
 */
export interface ReceiptInput extends
  Pick<
    ToolReceiptBody,
    | "task"
    | "tool"
    | "cwd"
    | "sandboxProfile"
    | "envNames"
    | "startedAt"
    | "endedAt"
    | "exit"
    | "stdout"
    | "stderr"
    | "outcome"
  > {
  /** The exact argv (only its digest is stored). */
  readonly argv: readonly string[];
  /** Paths declared read-only for the sandbox (`--sandbox-ro`, contract); omitted when none. */
  readonly sandboxReadOnly?: readonly string[];
}

/** A check's judged outcome, as sealed in its receipt. */
export type ReceiptOutcome = "pass" | "fail" | "inconclusive";

/** The MAC'd part of a receipt. */
export interface ToolReceiptBody {
  /** Format version. */
  readonly v: 1;
  /** The task the command ran for. */
  readonly task: string;
  /** What the command was for (e.g. `check:<name>`). */
  readonly tool: string;
  /** `sha256:` of the canonical JSON of the argv array. */
  readonly argvDigest: string;
  /** Working directory of the command. */
  readonly cwd: string;
  /** Sandbox profile the command ran in. */
  readonly sandboxProfile: string;
  /** Declared read-only sandbox paths, sorted; absent when none were declared. */
  readonly sandboxReadOnly?: readonly string[] | undefined;
  /** Names (never values) of the environment variables passed; sealed sorted, de-duplicated. */
  readonly envNames: readonly string[];
  /** When the command started, ms since epoch. */
  readonly startedAt: number;
  /** When the command ended, ms since epoch. */
  readonly endedAt: number;
  /** How the command exited. */
  readonly exit: ReceiptExit;
  /** Digest of its standard output. */
  readonly stdout: StreamDigest;
  /** Digest of its standard error. */
  readonly stderr: StreamDigest;
  /** The log head (seq, hash) when the receipt was minted. */
  readonly anchor: LogHead;
  /** Chain hash of the previous receipt, or 64 zeros for the first. */
  readonly prevReceipt: string;
  /** Which MAC key sealed it. */
  readonly keyId: string;
  /**
   * The judged outcome of the contract check this command ran (sealed with the
   * rest, so `vouch inspect` can re-derive each event's claim from it). Absent
   * for commands that are not a check (setup) and in receipts of older logs.
   */
  readonly outcome?: ReceiptOutcome;
}

/** A sealed receipt: the body plus its HMAC-SHA-256 (hex). */
export interface ToolReceipt extends ToolReceiptBody {
  /** Lower-case hex HMAC-SHA-256 over the domain prefix and the canonical body. */
  readonly mac: string;
}

const HEX64 = /^[0-9a-f]{64}$/;
const DIGEST = /^sha256:[0-9a-f]{64}$/;
const ms = z.lazy(() => z.number().int().min(0).max(Number.MAX_SAFE_INTEGER));
const stream = z.lazy(() => z.strictObject({ digest: z.string().regex(DIGEST), bytes: ms }));

/** zod schema of a receipt read from outside (log records, files). */
export const ToolReceiptSchema: z.ZodType<ToolReceipt> = z.lazy(() =>
  z.strictObject({
    v: z.literal(1),
    task: z.string().min(1).max(200),
    tool: z.string().min(1).max(200),
    argvDigest: z.string().regex(DIGEST),
    cwd: z.string().max(4096),
    sandboxProfile: z.string().min(1).max(100),
    sandboxReadOnly: z.array(z.string().min(1).max(4096)).min(1).max(100).optional(),
    envNames: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/)).max(1000),
    startedAt: ms,
    endedAt: ms,
    exit: z.strictObject({
      code: z.number().int(),
      signal: z.string().nullable(),
      timedOut: z.boolean(),
    }),
    stdout: stream,
    stderr: stream,
    anchor: z.strictObject({ seq: ms, hash: z.string().regex(HEX64) }),
    prevReceipt: z.string().regex(HEX64),
    keyId: z.string().min(1).max(100),
    outcome: z.enum(["pass", "fail", "inconclusive"]).optional(),
    mac: z.string().regex(HEX64),
  }) as z.ZodType<ToolReceipt>
);

const encoder = new TextEncoder();

/** Splits a receipt into its body (everything but `mac`). */
export function receiptBody(receipt: ToolReceipt): ToolReceiptBody {
  const { mac: _mac, ...body } = receipt;
  return body;
}

/**
 * The chain hash of a receipt: SHA-256 over a domain prefix and the canonical
 * body (without the MAC). The next receipt's `prevReceipt` equals it.
 *
 * @example
 * ```ts
 * import { equal, match, notEqual } from "node:assert/strict";
 * import { importMacKey } from "../keys/mac_key.ts";
 * import { mintReceipt, receiptBody, receiptChainHash } from "./receipt.ts";
 * const key = await importMacKey(new Uint8Array(32), "memory");
 * const z = { digest: "sha256:" + "0".repeat(64), bytes: 0 };
 * const input = {
 *   task: "t1", tool: "check:unit", argv: ["true"], cwd: "/w", sandboxProfile: "none",
 *   envNames: [], startedAt: 1, endedAt: 2, exit: { code: 0, signal: null, timedOut: false },
 *   stdout: z, stderr: z,
 * };
 * const anchor = { seq: 0, hash: "0".repeat(64) };
 * const first = await mintReceipt(key, input, { anchor, prevReceipt: "0".repeat(64) });
 * const next = receiptChainHash(first); // the second receipt's prevReceipt
 * match(next, /^[0-9a-f]{64}$/);
 * equal(receiptChainHash(receiptBody(first)), next); // the MAC is not hashed
 * const second = await mintReceipt(key, input, { anchor, prevReceipt: next });
 * notEqual(receiptChainHash(second), next);
 * ```
 */
export function receiptChainHash(receipt: ToolReceipt | ToolReceiptBody): string {
  const body = "mac" in receipt ? receiptBody(receipt) : receipt;
  return toHex(nodeSha256.digest(encoder.encode(RECEIPT_CHAIN_DOMAIN + canonicalJson(body))));
}

/** `sha256:` digest of a whole receipt (MAC included), as cited by attestations. */
export function receiptDigest(receipt: ToolReceipt): string {
  return sha256Hex(canonicalJson(receipt));
}

function macInput(body: ToolReceiptBody): Uint8Array<ArrayBuffer> {
  return encoder.encode(RECEIPT_MAC_DOMAIN + canonicalJson(body));
}

/**
 * Seals a receipt body with the key.
 *
 * @example
 * ```ts
 * import { rejects } from "node:assert/strict";
 * import { importMacKey } from "../keys/mac_key.ts";
 * import { mintReceipt, verifyReceiptMac } from "./receipt.ts";
 * const key = await importMacKey(new Uint8Array(32), "memory");
 * const z = { digest: "sha256:" + "0".repeat(64), bytes: 0 };
 * const receipt = await mintReceipt(key, {
 *   task: "t1", tool: "check:unit", argv: ["deno", "test"], cwd: "/w", sandboxProfile: "bwrap",
 *   envNames: ["PATH"], startedAt: 1, endedAt: 2, exit: { code: 0, signal: null, timedOut: false },
 *   stdout: z, stderr: z,
 * }, { anchor: { seq: 0, hash: "0".repeat(64) }, prevReceipt: "0".repeat(64) });
 * await verifyReceiptMac(receipt, key); // throws ReceiptError("bad_mac") when it does not verify
 * const other = await importMacKey(new Uint8Array(32).fill(7), "memory");
 * await rejects(verifyReceiptMac(receipt, other));
 * ```
 */
export async function mintReceipt(
  key: MacKey,
  input: ReceiptInput,
  link: { readonly anchor: LogHead; readonly prevReceipt: string },
): Promise<ToolReceipt> {
  const body: ToolReceiptBody = {
    v: 1,
    task: input.task,
    tool: input.tool,
    argvDigest: sha256Hex(canonicalJson([...input.argv])),
    cwd: input.cwd,
    sandboxProfile: input.sandboxProfile,
    ...((input.sandboxReadOnly ?? []).length > 0
      ? { sandboxReadOnly: [...new Set(input.sandboxReadOnly)].sort() }
      : {}),
    envNames: [...new Set(input.envNames)].sort(),
    startedAt: input.startedAt,
    endedAt: input.endedAt,
    exit: { code: input.exit.code, signal: input.exit.signal, timedOut: input.exit.timedOut },
    stdout: { digest: input.stdout.digest, bytes: input.stdout.bytes },
    stderr: { digest: input.stderr.digest, bytes: input.stderr.bytes },
    anchor: { seq: link.anchor.seq, hash: link.anchor.hash },
    prevReceipt: link.prevReceipt,
    keyId: key.keyId,
    ...(input.outcome !== undefined ? { outcome: input.outcome } : {}),
  };
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key.cryptoKey, macInput(body)));
  const receipt: ToolReceipt = { ...body, mac: toHex(mac) };
  const checked = ToolReceiptSchema.safeParse(receipt);
  if (!checked.success) {
    throw new ReceiptError(
      "invalid_input",
      `Cannot mint receipt: ${checked.error.issues[0]?.path.join(".")}: ${
        checked.error.issues[0]?.message
      }`,
    );
  }
  return receipt;
}

function hexToBytes(hex: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/**
 * Checks a receipt's schema, key id and MAC (WebCrypto `verify`, constant time).
 * Throws `ReceiptError` (`schema`, `key_mismatch`, `bad_mac`); returns the
 * validated receipt.
 */
export async function verifyReceiptMac(receipt: unknown, key: MacKey): Promise<ToolReceipt> {
  const parsed = ToolReceiptSchema.safeParse(receipt);
  if (!parsed.success) {
    throw new ReceiptError("schema", `Cannot verify receipt: ${parsed.error.issues[0]?.message}`);
  }
  const r = parsed.data;
  if (r.keyId !== key.keyId) {
    throw new ReceiptError(
      "key_mismatch",
      `Cannot verify receipt: sealed with key ${r.keyId}, not ${key.keyId}`,
    );
  }
  const ok = await crypto.subtle.verify(
    "HMAC",
    key.cryptoKey,
    hexToBytes(r.mac),
    macInput(receiptBody(r)),
  );
  if (!ok) throw new ReceiptError("bad_mac", `Cannot verify receipt: MAC mismatch (${r.tool})`);
  return r;
}

/**
 * Builds a {@linkcode ReceiptInput} from a `runProcess` result.
 *
 * @example
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
 * import { runProcess } from "../process/run.ts";
 * import { receiptInputFromProcess } from "./receipt.ts";
 * const startedAt = Date.now();
 * const result = await runProcess({ argv: ["sh", "-c", "exit 3"], cwd: "/" });
 * const input = receiptInputFromProcess("t1", "check:unit", result, startedAt);
 * deepEqual([input.task, input.tool, input.cwd], ["t1", "check:unit", "/"]);
 * equal(input.exit.code, 3);
 * equal(input.sandboxProfile, "none"); // the profile the process ran in, unless given
 * ```
 */
export function receiptInputFromProcess(
  task: string,
  tool: string,
  result: ProcessResult,
  startedAt: number,
  sandboxProfile: string = result.sandbox,
  sandboxReadOnly: readonly string[] = [],
): ReceiptInput {
  return {
    task,
    tool,
    argv: result.argv,
    cwd: result.cwd,
    sandboxProfile,
    ...(sandboxReadOnly.length > 0 ? { sandboxReadOnly } : {}),
    envNames: result.envNames,
    startedAt,
    endedAt: startedAt + Math.max(0, Math.round(result.durationMs)),
    exit: { code: result.exitCode, signal: result.signal, timedOut: result.timedOut },
    stdout: { digest: result.stdout.sha256, bytes: result.stdout.totalBytes },
    stderr: { digest: result.stderr.sha256, bytes: result.stderr.totalBytes },
  };
}

/** The genesis `prevReceipt`. */
export const GENESIS_RECEIPT = GENESIS_HASH;
