/**
 * `vouch attest`: export a verified patch from the event log as a signed in-toto
 * attestation (DSSE, Ed25519), print the public key, and verify an attestation
 * with nothing but the public key.
 *
 * @module
 */
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { type CliCommand, type CliIo, EXIT, UsageError } from "../command.ts";
import {
  AttestError,
  buildStatement,
  PREDICATE_KINDS,
  type PredicateKind,
  signStatement,
  summarizeStatement,
  verifyEnvelope,
} from "../../adapters/attest/mod.ts";
import { sha256Hex } from "../../adapters/digest/mod.ts";
import {
  findRepositoryRoot,
  importPublicKey,
  KeyError,
  loadOrCreateMacKey,
  loadOrCreateSigningKey,
  processKeyEnv,
} from "../../adapters/keys/mod.ts";
import { LOG_KINDS, readLogFile } from "../../adapters/log/mod.ts";
import { verifyReceiptsAgainstLog } from "../../adapters/receipts/mod.ts";
import { VerifiedPatchError, verifyVerifiedPatchJson } from "../../adapters/verified_patch/mod.ts";
import { jsonDocument } from "../json_document.ts";
import { readFile, writeFile } from "node:fs/promises";

const HELP = `vouch attest: export and verify signed attestations of verified patches

Usage:
  vouch attest export [--log LOG] [--task ID] [--out FILE] [--key-file FILE] [--pub-out FILE]
                      [--predicate vouch|vsa|test-result] [--resource-uri URI] [--policy-uri URI]
  vouch attest verify FILE --key PUBKEY [--patch DIFF] [--json]
  vouch attest pubkey [--repo DIR]

export   Finds the last verified patch in LOG (default .vouch/events.jsonl),
         re-checks its MAC, anchor and receipts, and writes an in-toto
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
         with --patch, that the diff's SHA-256 is a subject.
pubkey   Prints the repository's attestation public key (SPKI PEM).

Examples:
  vouch attest export --task t1 --out t1.intoto.json --pub-out vouch.pub
  vouch attest export --task t1 --predicate vsa --policy-uri https://example.com/c.json
  vouch attest verify t1.intoto.json --key vouch.pub --patch t1.diff
`;

async function exportAttestation(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: {
      log: { type: "string", default: ".vouch/events.jsonl" },
      task: { type: "string" },
      out: { type: "string" },
      "key-file": { type: "string" },
      "pub-out": { type: "string" },
      predicate: { type: "string", default: "vouch" },
      "resource-uri": { type: "string" },
      "policy-uri": { type: "string" },
    },
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
  const logPath = values.log;
  const repoRoot = findRepositoryRoot(dirname(resolve(logPath)));
  const read = await readLogFile(logPath).catch((error) => {
    throw new UsageError(`Cannot read log ${logPath}: ${error.message}`);
  });
  if (read.status === "tampered") {
    io.err(
      `vouch attest: the log is tampered (${read.issue.reason} at line ${read.issue.line}); refusing to attest\n`,
    );
    return EXIT.rejected;
  }
  const minted = read.records.filter((r) =>
    r.kind === LOG_KINDS.verifiedPatchMinted &&
    (values.task === undefined || r.task === values.task)
  ).at(-1);
  if (!minted) {
    io.err(
      `vouch attest: no verified patch${
        values.task ? ` for task ${values.task}` : ""
      } in ${logPath}\n`,
    );
    return EXIT.rejected;
  }
  const env = values["key-file"] !== undefined
    ? { ...processKeyEnv(), VOUCH_KEY_FILE: values["key-file"] }
    : processKeyEnv();
  try {
    const macKey = await loadOrCreateMacKey({ repoRoot, env, create: false });
    const patch = await verifyVerifiedPatchJson(minted.body, macKey);
    const issue = await verifyReceiptsAgainstLog(patch.receipts, read.records, macKey);
    if (issue) {
      io.err(`vouch attest: receipt check failed: ${issue.code}: ${issue.detail}\n`);
      return EXIT.rejected;
    }
    const signingKey = await loadOrCreateSigningKey({ repoRoot, env });
    const envelope = await signStatement(
      buildStatement(patch, kind, {
        ...(values["resource-uri"] !== undefined ? { resourceUri: values["resource-uri"] } : {}),
        ...(values["policy-uri"] !== undefined ? { policyUri: values["policy-uri"] } : {}),
      }),
      signingKey,
    );
    const text = JSON.stringify(envelope, null, 2) + "\n";
    if (values.out !== undefined) {
      await writeFile(values.out, text);
      io.err(`wrote ${values.out} (task ${patch.task}, key ${signingKey.keyId.slice(0, 16)})\n`);
    } else {
      io.out(text);
    }
    if (values["pub-out"] !== undefined) {
      await writeFile(values["pub-out"], signingKey.publicKeyPem);
    }
    return EXIT.ok;
  } catch (error) {
    if (error instanceof KeyError || error instanceof VerifiedPatchError) {
      io.err(`vouch attest: ${error.message}\n`);
      return EXIT.rejected;
    }
    throw error;
  }
}

async function verifyAttestation(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: {
      key: { type: "string" },
      patch: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  if (positionals.length !== 1) throw new UsageError("Cannot verify: give exactly one FILE");
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
      throw new UsageError(`Cannot read patch ${values.patch}: ${(error as Error).message}`);
    }
  }
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
    const { statement, keyid } = await verifyEnvelope(
      envelope,
      key,
      expectPatchSha256 ? { expectPatchSha256 } : {},
    );
    if (values.json) {
      io.out(JSON.stringify(jsonDocument({ verified: true, keyid, statement }), null, 2) + "\n");
    } else {
      const p = summarizeStatement(statement);
      io.out(
        [
          `VERIFIED attestation by key ${keyid.slice(0, 16)}`,
          `  predicate ${p.predicateType}`,
          `  task      ${p.vouch.task}`,
          `  subject   ${
            statement.subject.map((s) =>
              `${s.name ?? ""} ${Object.entries(s.digest).map(([k, v]) => `${k}:${v}`).join(" ")}`
            ).join("; ")
          }`,
          ...(p.verifierId ? [`  verified  ${p.timeVerified} by ${p.verifierId}`] : []),
          `  contract  sha256:${p.policyDigest || "?"}`,
          `  checks    ${p.vouch.checks.map((c) => `${c.id} ${c.outcome}`).join(", ")}`,
          `  receipts  ${p.receipts}, log anchor seq ${p.vouch.logAnchor.seq}`,
          `  sandbox   ${p.vouch.sandboxProfile}, backend ${p.vouch.backend}`,
          "",
        ].join("\n"),
      );
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
  const { values, positionals } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: { repo: { type: "string", default: "." } },
  });
  if (positionals.length > 0) {
    throw new UsageError(`Cannot use arguments: ${positionals.join(" ")}`);
  }
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
  name: "attest",
  summary: "export or verify a signed in-toto attestation of a verified patch",
  help: HELP,
  exits: { 0: "ok/verified", 1: "rejected" },
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
