/**
 * The one attester: every attestation vouch writes (`vouch run`'s artefacts,
 * `vouch batch`'s per candidate, `vouch attest export`, `vouch verify
 * --attest-out`) is made here, from a MAC-checked VerifiedPatch, with the
 * chosen predicate. `exportFromLog` is `attest export`'s whole logic (the CLI
 * only prints): pick the minted patch in the event log, re-check its MAC and
 * its receipts against the log, and sign.
 *
 * @module
 */
import { dirname, resolve } from "node:path";
import { KeyError } from "../keys/errors.ts";
import { loadOrCreateMacKey, type MacKey } from "../keys/mac_key.ts";
import { findRepositoryRoot, type KeyEnv } from "../keys/paths.ts";
import { loadOrCreateSigningKey, type SigningKey } from "../keys/signing_key.ts";
import { LOG_KINDS } from "../log/kinds.ts";
import { readLogFile } from "../log/store.ts";
import { verifyReceiptsAgainstLog } from "../receipts/mod.ts";
import { VerifiedPatchError } from "../verified_patch/errors.ts";
import {
  type VerifiedPatchJson,
  verifyVerifiedPatchJson,
} from "../verified_patch/verified_patch.ts";
import type { DsseEnvelope } from "./dsse.ts";
import { signStatement } from "./envelope.ts";
import { buildStatement, type PredicateKind, type StatementOptions } from "./predicates.ts";

/**
 * Signs the attestation of a VerifiedPatch in its JSON form, after checking
 * its MAC with `macKey` (a forged or edited record throws `VerifiedPatchError`).
 *
 * @example
 * ```ts ignore
 * const envelope = await attestVerifiedPatchJson(JSON.parse(text), macKey, signingKey);
 * ```
 */
export async function attestVerifiedPatchJson(
  value: unknown,
  macKey: MacKey,
  signingKey: SigningKey,
  predicate: PredicateKind = "vouch",
  options: StatementOptions = {},
): Promise<{ readonly envelope: DsseEnvelope; readonly patch: VerifiedPatchJson }> {
  const patch = await verifyVerifiedPatchJson(value, macKey);
  return {
    envelope: await signStatement(buildStatement(patch, predicate, options), signingKey),
    patch,
  };
}

/** What {@linkcode exportFromLog} selects and signs. */
export interface LogExportOptions extends StatementOptions {
  /** The event log holding the minted verified patch. */
  readonly logPath: string;
  /** The verified patch of this task. */
  readonly task?: string;
  /** The verified patch with this digest (`sha256:<hex>`, or a prefix of it). */
  readonly patchDigest?: string;
  /** The key store to read (`VOUCH_KEY_FILE`, `XDG_STATE_HOME`, `HOME`). */
  readonly env: KeyEnv;
  readonly predicate: PredicateKind;
}

/** What {@linkcode exportFromLog} gives. */
export type LogExport =
  | {
    readonly ok: true;
    readonly envelope: DsseEnvelope;
    readonly patch: VerifiedPatchJson;
    readonly signingKey: SigningKey;
    /** How the patch was picked, for the user (`selected for task t1`, `the latest of 3 ...`). */
    readonly how: string;
  }
  /** Refused (exit 1): a tampered log, nothing to attest, a check that failed. */
  | { readonly ok: false; readonly usage: false; readonly message: string }
  /** The selection is ambiguous (exit 2). */
  | { readonly ok: false; readonly usage: true; readonly message: string };

/** What {@linkcode exportMinted} signs: a VerifiedPatch the driver holds, just minted. */
export interface MintedExportOptions extends StatementOptions {
  /** The VerifiedPatch (its JSON form: MAC-checked again here before it is signed). */
  readonly patch: unknown;
  /** The event log its task was recorded in (the repository, and so its keys, are found from it). */
  readonly logPath: string;
  /** The key store to read (`VOUCH_KEY_FILE`, `XDG_STATE_HOME`, `HOME`). */
  readonly env: KeyEnv;
  readonly predicate: PredicateKind;
}

/**
 * Signs the VerifiedPatch a verification just minted and returned in memory
 * (`vouch verify --attest-out`), without reading the event log again: its MAC
 * is re-checked with the repository's key, then it is signed with the
 * repository's Ed25519 key. The same result as {@linkcode exportFromLog}.
 *
 * @example
 * ```ts ignore
 * const r = await exportMinted({ patch: outcome.verifiedPatch.toJSON(), logPath: outcome.logPath,
 *   env: processKeyEnv(), predicate: "vouch" });
 * if (r.ok) console.log(JSON.stringify(r.envelope));
 * ```
 */
export async function exportMinted(opts: MintedExportOptions): Promise<LogExport> {
  const repoRoot = findRepositoryRoot(dirname(dirname(resolve(opts.logPath))));
  return await signChecked(
    opts,
    repoRoot,
    "the patch this verification minted",
    (macKey) => verifyVerifiedPatchJson(opts.patch, macKey).then((patch) => ({ patch })),
  );
}

/**
 * Checks a VerifiedPatch with the repository's MAC key (`check`), then signs its
 * statement with the repository's Ed25519 key; a key or MAC failure is a refusal.
 */
async function signChecked(
  opts: StatementOptions & { readonly env: KeyEnv; readonly predicate: PredicateKind },
  repoRoot: string,
  how: string,
  check: (
    macKey: MacKey,
  ) => Promise<{ readonly patch: VerifiedPatchJson; readonly refusal?: string }>,
): Promise<LogExport> {
  try {
    const macKey = await loadOrCreateMacKey({ repoRoot, env: opts.env, create: false });
    const { patch, refusal } = await check(macKey);
    if (refusal !== undefined) return { ok: false, usage: false, message: refusal };
    const signingKey = await loadOrCreateSigningKey({ repoRoot, env: opts.env });
    const options: StatementOptions = {
      ...(opts.verifierId !== undefined ? { verifierId: opts.verifierId } : {}),
      ...(opts.version !== undefined ? { version: opts.version } : {}),
      ...(opts.resourceUri !== undefined ? { resourceUri: opts.resourceUri } : {}),
      ...(opts.policyUri !== undefined ? { policyUri: opts.policyUri } : {}),
    };
    const envelope = await signStatement(
      buildStatement(patch, opts.predicate, options),
      signingKey,
    );
    return { ok: true, envelope, patch, signingKey, how };
  } catch (error) {
    if (error instanceof KeyError || error instanceof VerifiedPatchError) {
      return { ok: false, usage: false, message: error.message };
    }
    throw error;
  }
}

/**
 * Picks the verified patch of `task` / with `patchDigest` (else the latest) in
 * the log, re-checks its MAC and receipts against the log, and signs it with
 * the repository's Ed25519 key. An unreadable log throws `EventLogError`.
 *
 * @example
 * ```ts ignore
 * const r = await exportFromLog({ logPath: ".vouch/events.jsonl", task: "t1", env: processKeyEnv(), predicate: "vouch" });
 * if (r.ok) console.log(JSON.stringify(r.envelope));
 * ```
 */
export async function exportFromLog(opts: LogExportOptions): Promise<LogExport> {
  const refuse = (message: string): LogExport => ({ ok: false, usage: false, message });
  const logPath = resolve(opts.logPath);
  const repoRoot = findRepositoryRoot(dirname(dirname(logPath)));
  const read = await readLogFile(logPath);
  if (read.status === "tampered") {
    return refuse(
      `the log is tampered (${read.issue.reason} at line ${read.issue.line}); refusing to attest`,
    );
  }
  const all = read.records.filter((r) => r.kind === LOG_KINDS.verifiedPatchMinted);
  const digestOf = (body: unknown) => String((body as { patchDigest?: unknown }).patchDigest ?? "");
  const matching = all.filter((r) =>
    (opts.task === undefined || r.task === opts.task) &&
    (opts.patchDigest === undefined || digestOf(r.body).startsWith(opts.patchDigest))
  );
  const minted = matching.at(-1);
  const selector = opts.task !== undefined
    ? ` for task ${opts.task}`
    : opts.patchDigest !== undefined
    ? ` with digest ${opts.patchDigest}`
    : "";
  if (!minted) return refuse(`no verified patch${selector} in ${opts.logPath}`);
  const digests = new Set(matching.map((r) => digestOf(r.body)));
  if (opts.patchDigest !== undefined && digests.size > 1) {
    return {
      ok: false,
      usage: true,
      message:
        `Cannot export: digest prefix ${opts.patchDigest} matches ${digests.size} verified patches; give more digits`,
    };
  }
  const how = selector !== ""
    ? `selected${selector}`
    : all.length > 1
    ? `the latest of ${all.length} verified patches; select with --task or --patch-digest`
    : "the only verified patch in the log";
  return await signChecked(opts, repoRoot, how, async (macKey) => {
    const patch = await verifyVerifiedPatchJson(minted.body, macKey);
    const issue = await verifyReceiptsAgainstLog(patch.receipts, read.records, macKey);
    return issue
      ? { patch, refusal: `receipt check failed: ${issue.code}: ${issue.detail}` }
      : { patch };
  });
}
