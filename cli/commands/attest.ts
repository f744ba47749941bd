/**
 * `vouch attest`: export a verified patch from the event log as a signed in-toto
 * attestation (DSSE, Ed25519), print the public key, and verify an attestation
 * with nothing but the public key.
 *
 * @module
 */
import { UNSANDBOXED_WARNING } from "../../adapters/sandbox/profile.ts";
import { JSON_FLAG, parseCommandLine, parseFlags } from "./_flags.ts";
import { type CliCommand, type CliIo, EXIT, UsageError } from "../command.ts";
import { listedCommand } from "./_listed.ts";
import {
  AttestError,
  exportFromLog,
  exportMinted,
  PREDICATE_KINDS,
  type PredicateKind,
  SANDBOX_STRENGTH,
  type StatementPins,
  summarizeStatement,
  verifyEnvelope,
} from "../../adapters/attest/mod.ts";
import { sha256Hex } from "../../adapters/digest/mod.ts";
import { loadContract } from "../../adapters/contract/load.ts";
import { visible } from "../../adapters/text/mod.ts";
import {
  findRepositoryRoot,
  importPublicKey,
  KeyError,
  loadOrCreateSigningKey,
  processKeyEnv,
} from "../../adapters/keys/mod.ts";
import { jsonDocument } from "../json_document.ts";
import { defaultLogPath } from "../log_location.ts";
import { readFile, writeFile } from "node:fs/promises";
import { permissionDenied } from "../../adapters/process/permission.ts";

const HELP = `vouch attest: export and verify signed attestations of verified patches

Usage:
  vouch attest export [--task ID | --patch-digest DIGEST | --patch DIFF] [--log LOG] [--out FILE]
                      [--key-file FILE] [--pub-out FILE] [--predicate vouch|vsa|test-result]
                      [--resource-uri URI] [--policy-uri URI]
  vouch attest verify FILE --key PUBKEY [--patch DIFF] [--contract FILE|sha256:HEX]
                      [--base COMMIT] [--policy sha256:HEX|URI] [--sandbox bwrap|bwrap+network|none]
                      [--json]
  vouch attest pubkey [--repo DIR]

export   Finds the verified patch of the task (--task), with that digest
         (--patch-digest sha256:HEX or a prefix of 12+ hex digits, or --patch
         DIFF: its SHA-256), else the latest, in LOG (default: .vouch/events.jsonl
         at the top of the repository you are in, from any subdirectory), says
         which it picked, re-checks its MAC, anchor and receipts, and writes an in-toto
         Statement v1 in a DSSE envelope signed with the repository's Ed25519
         key. --predicate picks the predicate: vouch (default,
         https://vouch.dev/verification-summary/v1), vsa (SLSA Verification
         Summary v1, https://slsa.dev/verification_summary/v1; policy = the
         contract, --policy-uri names it, --resource-uri the verified resource)
         or test-result (in-toto https://in-toto.io/attestation/test-result/v0.1:
         checks as passed/warned/failed tests, the contract as configuration).
verify   Checks an envelope with only the public key (no vouch state needed):
         payload type, an Ed25519 signature over PAE by that key (keyid is only
         a hint; both base64 alphabets), statement shape (any of the three
         predicates), PASSED;
         with --patch, that the diff's SHA-256 is a subject; with --contract,
         that the contract run is that file (its digest as the VerifiedPatch
         records it: canonical JSON) or that digest; with --base, the base
         commit; with --policy, the policy's digest or URI; with --sandbox,
         that the checks ran in at least that sandbox (bwrap > bwrap+network >
         none). A pin the statement contradicts or does not record is refused.
pubkey   Prints the repository's attestation public key (SPKI PEM).

Examples:
  vouch attest export --task t1 --out t1.intoto.json --pub-out vouch.pub
  vouch attest export --patch fix.patch --out fix.intoto.json
  vouch attest export --task t1 --predicate vsa --policy-uri https://example.com/c.json
  vouch attest verify t1.intoto.json --key vouch.pub --patch t1.diff
  vouch attest verify t1.intoto.json --key vouch.pub --patch t1.diff --contract vouch.contract.json \
                      --base 4f1c2e9d... --sandbox bwrap
`;

async function exportAttestation(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, {
    log: { type: "string" },
    task: { type: "string" },
    "patch-digest": { type: "string" },
    patch: { type: "string" },
    out: { type: "string" },
    "key-file": { type: "string" },
    "pub-out": { type: "string" },
    predicate: { type: "string", default: "vouch" },
    "resource-uri": { type: "string" },
    "policy-uri": { type: "string" },
  });
  const kind = values.predicate as PredicateKind;
  if (!PREDICATE_KINDS.includes(kind)) {
    throw new UsageError(
      `Cannot export: --predicate is "${values.predicate}", expected one of ${
        PREDICATE_KINDS.join(", ")
      }`,
    );
  }
  if (positionals.length > 0) {
    throw new UsageError(`Cannot use arguments: ${positionals.join(" ")}`);
  }
  const selectors = [values.task, values["patch-digest"], values.patch].filter((v) =>
    v !== undefined
  );
  if (selectors.length > 1) {
    throw new UsageError("Cannot export: give at most one of --task, --patch-digest and --patch");
  }
  let digest: string | undefined;
  if (values["patch-digest"] !== undefined) {
    digest = values["patch-digest"].toLowerCase();
    if (!/^(sha256:)?[0-9a-f]{12,64}$/.test(digest)) {
      throw new UsageError(
        `Cannot export: --patch-digest "${
          values["patch-digest"]
        }" is not sha256:HEX (12+ hex digits)`,
      );
    }
    if (!digest.startsWith("sha256:")) digest = `sha256:${digest}`;
  } else if (values.patch !== undefined) {
    try {
      digest = sha256Hex(await readFile(values.patch));
    } catch (error) {
      throw permissionDenied(error) ??
        new UsageError(`Cannot read patch ${values.patch}: ${(error as Error).message}`);
    }
  }
  return await exportVerifiedPatchAttestation({
    logPath: values.log ?? defaultLogPath(),
    ...(values.task !== undefined ? { task: values.task } : {}),
    ...(digest !== undefined ? { patchDigest: digest } : {}),
    ...(values.out !== undefined ? { out: values.out } : {}),
    ...(values["pub-out"] !== undefined ? { pubOut: values["pub-out"] } : {}),
    ...(values["key-file"] !== undefined ? { keyFile: values["key-file"] } : {}),
    predicate: kind,
    ...(values["resource-uri"] !== undefined ? { resourceUri: values["resource-uri"] } : {}),
    ...(values["policy-uri"] !== undefined ? { policyUri: values["policy-uri"] } : {}),
  }, io);
}

/** What {@linkcode exportVerifiedPatchAttestation} attests and where it writes. */
export interface AttestationExport {
  /** The event log holding the minted verified patch. */
  readonly logPath: string;
  /** Select the verified patch of this task. */
  readonly task?: string;
  /** Select the verified patch with this digest (`sha256:<hex>`, or a prefix of it). */
  readonly patchDigest?: string;
  /**
   * The VerifiedPatch (JSON form) the caller holds, just minted: signed after its MAC is
   * re-checked, without picking it from the log (`verify --attest-out`).
   */
  readonly minted?: unknown;
  /** Write the envelope here (default: stdout). */
  readonly out?: string;
  /** Also write the public key (SPKI PEM) here. */
  readonly pubOut?: string;
  /** Key file (`VOUCH_KEY_FILE`) instead of the default store. */
  readonly keyFile?: string;
  readonly predicate: PredicateKind;
  readonly resourceUri?: string;
  readonly policyUri?: string;
}

/**
 * Exports the selected verified patch of a log as a signed attestation (used
 * by `attest export` and `verify --attest-out`): re-checks the patch's MAC and
 * receipts against the log, signs, writes, and says on stderr which patch of
 * which task it attested. Exit code: 0 written, 1 nothing to attest or a check
 * failed.
 *
 * @example
 * ```ts ignore
 * import { exportVerifiedPatchAttestation } from "./attest.ts";
 * await exportVerifiedPatchAttestation({ logPath: ".vouch/events.jsonl", task: "t1",
 *   out: "t1.intoto.json", predicate: "vouch" }, io);
 * ```
 */
export async function exportVerifiedPatchAttestation(
  opts: AttestationExport,
  io: CliIo,
): Promise<number> {
  const env = opts.keyFile !== undefined
    ? { ...processKeyEnv(), VOUCH_KEY_FILE: opts.keyFile }
    : processKeyEnv();
  // The patch a verification just minted is signed as it is held; anything else is picked
  // from the log. An unreadable log is an EventLogError("io"): one line and exit 5.
  const r = opts.minted !== undefined
    ? await exportMinted({
      patch: opts.minted,
      logPath: opts.logPath,
      env,
      predicate: opts.predicate,
      ...(opts.resourceUri !== undefined ? { resourceUri: opts.resourceUri } : {}),
      ...(opts.policyUri !== undefined ? { policyUri: opts.policyUri } : {}),
    })
    : await exportFromLog({
      logPath: opts.logPath,
      env,
      predicate: opts.predicate,
      ...(opts.task !== undefined ? { task: opts.task } : {}),
      ...(opts.patchDigest !== undefined ? { patchDigest: opts.patchDigest } : {}),
      ...(opts.resourceUri !== undefined ? { resourceUri: opts.resourceUri } : {}),
      ...(opts.policyUri !== undefined ? { policyUri: opts.policyUri } : {}),
    });
  if (!r.ok) {
    if (r.usage) throw new UsageError(r.message);
    io.err(`vouch attest: ${visible(r.message)}\n`);
    return EXIT.rejected;
  }
  io.err(
    visible(`attesting verified patch ${r.patch.patchDigest} of task ${r.patch.task} (${r.how})\n`),
  );
  const text = JSON.stringify(r.envelope, null, 2) + "\n";
  if (opts.out !== undefined) {
    await writeFile(opts.out, text);
    io.err(
      visible(`wrote ${opts.out} (task ${r.patch.task}, key ${r.signingKey.keyId.slice(0, 16)})\n`),
    );
  } else {
    io.out(text);
  }
  if (opts.pubOut !== undefined) await writeFile(opts.pubOut, r.signingKey.publicKeyPem);
  return EXIT.ok;
}

async function verifyAttestation(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, {
    key: { type: "string" },
    patch: { type: "string" },
    contract: { type: "string" },
    base: { type: "string" },
    policy: { type: "string" },
    sandbox: { type: "string" },
    ...JSON_FLAG,
  });
  if (positionals.length !== 1) throw new UsageError("Cannot verify: give exactly one FILE");
  if (values.sandbox !== undefined && !SANDBOX_STRENGTH.includes(values.sandbox)) {
    throw new UsageError(
      `Cannot verify: --sandbox is "${values.sandbox}", expected one of ${
        SANDBOX_STRENGTH.join(", ")
      }`,
    );
  }
  if (values.key === undefined) throw new UsageError("Cannot verify: --key PUBKEY is required");
  const file = positionals[0]!;
  const readText = async (p: string, what: string) => {
    try {
      return await readFile(p, "utf8");
    } catch (error) {
      throw new UsageError(`Cannot read ${what} ${p}: ${(error as Error).message}`);
    }
  };
  const keyText = await readText(values.key, "public key");
  const envText = await readText(file, "attestation");
  let expectPatchSha256: string | undefined;
  if (values.patch !== undefined) {
    try {
      expectPatchSha256 = sha256Hex(await readFile(values.patch));
    } catch (error) {
      throw permissionDenied(error) ??
        new UsageError(`Cannot read patch ${values.patch}: ${(error as Error).message}`);
    }
  }
  let contractDigest: string | undefined;
  if (values.contract !== undefined) {
    if (/^sha256:[0-9a-fA-F]{64}$/.test(values.contract)) contractDigest = values.contract;
    else {
      try {
        contractDigest = (await loadContract(values.contract)).sourceDigest;
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
    }
  }
  const pins: StatementPins = {
    ...(contractDigest !== undefined ? { contractDigest } : {}),
    ...(values.base !== undefined ? { base: values.base } : {}),
    ...(values.policy !== undefined ? { policy: values.policy } : {}),
    ...(values.sandbox !== undefined ? { sandbox: values.sandbox } : {}),
  };
  const fail = (code: string, message: string) => {
    if (values.json) {
      io.out(JSON.stringify(jsonDocument({ verified: false, code, message })) + "\n");
    } else io.out(`REJECTED ${code}: ${message}\n`);
    return EXIT.rejected;
  };
  try {
    const key = await importPublicKey(keyText);
    let envelope: unknown;
    try {
      envelope = JSON.parse(envText);
    } catch {
      return fail("schema", "Cannot verify attestation: not JSON");
    }
    const { statement, keyid } = await verifyEnvelope(envelope, key, {
      ...(expectPatchSha256 ? { expectPatchSha256 } : {}),
      pins,
    });
    if (values.json) {
      io.out(JSON.stringify(jsonDocument({ verified: true, keyid, statement }), null, 2) + "\n");
    } else {
      const p = summarizeStatement(statement);
      io.out(visible(
        [
          `VERIFIED attestation by key ${keyid.slice(0, 16)}`,
          `  predicate ${p.predicateType}`,
          `  task      ${p.vouch.task}`,
          ...(p.vouch.baseRevision !== undefined ? [`  base      ${p.vouch.baseRevision}`] : []),
          `  subject   ${
            statement.subject.map((s) =>
              `${s.name ?? ""} ${Object.entries(s.digest).map(([k, v]) => `${k}:${v}`).join(" ")}`
            ).join("; ")
          }`,
          ...(p.verifierId ? [`  verified  ${p.timeVerified} by ${p.verifierId}`] : []),
          `  contract  sha256:${p.policyDigest || "?"}`,
          `  checks    ${p.vouch.checks.map((c) => `${c.id} ${c.outcome}`).join(", ")}`,
          `  receipts  ${p.receipts}, log anchor seq ${p.vouch.logAnchor.seq}`,
          `  sandbox   ${p.vouch.sandboxProfile}${
            p.vouch.sandboxProfile === "none" ? ` (${UNSANDBOXED_WARNING})` : ""
          }, backend ${p.vouch.backend}`,
          "",
        ].join("\n"),
      ));
    }
    return EXIT.ok;
  } catch (error) {
    if (error instanceof AttestError || error instanceof KeyError) {
      return fail(error.code, error.message);
    }
    throw error;
  }
}

async function printPublicKey(argv: string[], io: CliIo): Promise<number> {
  const values = parseFlags(argv, { repo: { type: "string", default: "." } });
  try {
    const key = await loadOrCreateSigningKey({ repoRoot: findRepositoryRoot(values.repo) });
    io.out(key.publicKeyPem);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof KeyError) {
      io.err(`vouch attest: ${error.message}\n`);
      return EXIT.rejected;
    }
    throw error;
  }
}

/** `vouch attest`. */
export const attestCommand: CliCommand = {
  ...listedCommand("attest", HELP, { 0: "ok/verified", 1: "rejected" }, ["verified", "rejected"]),
  async run(argv, io) {
    const [sub, ...rest] = argv;
    switch (sub) {
      case "export":
        return await exportAttestation(rest, io);
      case "verify":
        return await verifyAttestation(rest, io);
      case "pubkey":
        return await printPublicKey(rest, io);
      default:
        throw new UsageError(
          sub === undefined
            ? "Cannot attest: missing subcommand (export, verify, pubkey)"
            : `Cannot attest: unknown subcommand "${sub}"`,
        );
    }
  },
};
