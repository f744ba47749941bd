import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import {
  attestVerifiedPatch,
  buildStatement,
  buildVerificationStatement,
  type DsseEnvelope,
  pae,
  signDsse,
  signStatement,
  summarizeStatement,
  verifyEnvelope,
  VOUCH_PREDICATE_TYPE,
} from "../../../adapters/attest/mod.ts";
import { sha256Hex } from "../../../adapters/digest/mod.ts";
import { generateSigningKey, importMacKey, importPublicKey } from "../../../adapters/keys/mod.ts";
import { GENESIS_HASH } from "../../../adapters/log/mod.ts";
import { mintReceipt, receiptDigest } from "../../../adapters/receipts/mod.ts";
import { mintVerifiedPatch, VerifiedPatch } from "../../../adapters/verified_patch/mod.ts";

const text = (b: Uint8Array) => new TextDecoder().decode(b);
const macKey = await importMacKey(new Uint8Array(32).fill(2), "memory");
const zero = { digest: "sha256:" + "0".repeat(64), bytes: 0 };
const diff = new TextEncoder().encode("diff --git a/f b/f\n");
const base = "0123456789abcdef0123456789abcdef01234567";

async function verified(): Promise<VerifiedPatch> {
  const receipt = await mintReceipt(macKey, {
    task: "t1",
    tool: "check:unit",
    argv: ["deno", "test"],
    cwd: "/w",
    sandboxProfile: "bwrap",
    envNames: ["PATH"],
    startedAt: 1,
    endedAt: 2,
    exit: { code: 0, signal: null, timedOut: false },
    stdout: zero,
    stderr: zero,
  }, { anchor: { seq: 4, hash: "a".repeat(64) }, prevReceipt: GENESIS_HASH });
  return await mintVerifiedPatch(macKey, {
    patch: { kind: "unverified_patch", task: "t1", baseRevision: base, diff, backend: "codex" },
    contractDigest: "sha256:" + "c".repeat(64),
    checks: [{ id: "unit", outcome: "pass", receipt: receiptDigest(receipt) }],
    receipts: [receipt],
    passedAt: Date.UTC(2026, 10, 30),
    sandboxProfile: "bwrap",
    logAnchor: { seq: 5, hash: "b".repeat(64) },
  });
}

Deno.test("pae() matches the DSSE specification's test vector", () => {
  const out = pae("http://example.com/HelloWorld", new TextEncoder().encode("hello world"));
  assert.equal(text(out), "DSSEv1 29 http://example.com/HelloWorld 11 hello world");
  assert.equal(text(pae("", new Uint8Array())), "DSSEv1 0  0 ");
  // lengths are byte counts, not UTF-16 units
  assert.equal(text(pae("é", new TextEncoder().encode("ü"))), "DSSEv1 2 é 2 ü");
});

Deno.test("attestVerifiedPatch() produces an in-toto Statement v1 in a signed DSSE envelope", async () => {
  const key = await generateSigningKey();
  const vp = await verified();
  const envelope = await attestVerifiedPatch(vp, macKey, key);
  assert.equal(envelope.payloadType, "application/vnd.in-toto+json");
  assert.equal(envelope.signatures[0]!.keyid, key.keyId);
  const statement = JSON.parse(text(Buffer.from(envelope.payload, "base64")));
  assert.equal(statement._type, "https://in-toto.io/Statement/v1");
  assert.equal(statement.predicateType, VOUCH_PREDICATE_TYPE);
  assert.deepEqual(statement.subject, [
    { name: "patch:t1", digest: { sha256: sha256Hex(diff).slice(7) } },
    { name: "base", digest: { gitCommit: base } },
  ]);
  assert.equal(statement.predicate.verificationResult, "PASSED");
  assert.equal(statement.predicate.policy.digest.sha256, "c".repeat(64));
  assert.equal(statement.predicate.logAnchor.seq, 5);
  assert.equal(statement.predicate.timeVerified, "2026-11-30T00:00:00.000Z");
  assert.equal(statement.predicate.inputAttestations.length, 1);
  // The signature is over PAE(payloadType, payload), checkable with raw WebCrypto.
  const pub = await importPublicKey(key.publicKeyPem);
  assert.ok(
    await crypto.subtle.verify(
      "Ed25519",
      pub.cryptoKey,
      Buffer.from(envelope.signatures[0]!.sig, "base64"),
      pae(envelope.payloadType, Buffer.from(envelope.payload, "base64")),
    ),
  );
  const result = await verifyEnvelope(JSON.parse(JSON.stringify(envelope)), pub, {
    expectPatchSha256: vp.patchDigest,
  });
  assert.equal(summarizeStatement(result.statement).vouch.task, "t1");
});

Deno.test("verifyEnvelope() rejects tampering, other keys and wrong subjects", async () => {
  const key = await generateSigningKey();
  const other = await generateSigningKey();
  const pub = await importPublicKey(key.publicKeyPem);
  const envelope = await attestVerifiedPatch(await verified(), macKey, key);
  const reject = async (env: unknown, code: string, k = pub, opts = {}) =>
    await assert.rejects(verifyEnvelope(env, k, opts), { code });

  const statement = JSON.parse(text(Buffer.from(envelope.payload, "base64")));
  statement.predicate.checks[0].outcome = "fail";
  const swapped: DsseEnvelope = {
    ...envelope,
    payload: Buffer.from(JSON.stringify(statement)).toString("base64"),
  };
  await reject(swapped, "bad_signature");
  // payloadType is authenticated: changing it breaks the signature first
  await reject({ ...envelope, payloadType: "application/json" }, "bad_signature");
  await reject(
    await signDsse("application/json", Buffer.from(envelope.payload, "base64"), key),
    "payload_type",
  );
  await reject({ ...envelope, signatures: [] }, "schema");
  await reject("not an envelope", "schema");
  await reject(envelope, "no_signature", await importPublicKey(other.publicKeyPem));
  // a signature by another key relabelled with our key id
  const forged = await signStatement(
    buildVerificationStatement((await verified()).toJSON()),
    other,
  );
  await reject(
    { ...forged, signatures: [{ ...forged.signatures[0]!, keyid: key.keyId }] },
    "bad_signature",
  );
  await reject(envelope, "subject_mismatch", pub, {
    expectPatchSha256: "sha256:" + "0".repeat(64),
  });
  // flip one byte of the signature
  const sig = Buffer.from(envelope.signatures[0]!.sig, "base64");
  sig[0] = sig[0]! ^ 1;
  await reject({
    ...envelope,
    signatures: [{ ...envelope.signatures[0]!, sig: sig.toString("base64") }],
  }, "bad_signature");
});

Deno.test("attestVerifiedPatch() refuses anything but a MAC-checked VerifiedPatch", async () => {
  const key = await generateSigningKey();
  const vp = await verified();
  await assert.rejects(attestVerifiedPatch({ ...vp } as unknown as VerifiedPatch, macKey, key), {
    code: "forged",
  });
  await assert.rejects(
    attestVerifiedPatch(vp, await importMacKey(new Uint8Array(32), "other"), key),
    { code: "bad_mac" },
  );
});

Deno.test("buildStatement(): test-result result follows the checks; VSA policy is per contract", async () => {
  const json = (await verified()).toJSON();
  const withChecks = (outcomes: ("pass" | "fail" | "inconclusive")[]) =>
    buildStatement({
      ...json,
      checks: outcomes.map((outcome, i) => ({
        id: `c${i}`,
        outcome,
        receipt: json.checks[0]!.receipt,
      })),
    }, "test-result");
  const result = (s: ReturnType<typeof withChecks>) =>
    s.predicateType === "https://in-toto.io/attestation/test-result/v0.1" ? s.predicate : undefined;
  assert.equal(result(withChecks(["pass", "pass"]))?.result, "PASSED");
  assert.deepEqual(result(withChecks(["pass", "inconclusive"]))?.warnedTests, ["c1"]);
  assert.equal(result(withChecks(["pass", "inconclusive"]))?.result, "WARNED");
  assert.equal(result(withChecks(["fail", "inconclusive"]))?.result, "FAILED");
  const a = buildStatement(json, "vsa");
  const b = buildStatement({ ...json, contractDigest: "sha256:" + "d".repeat(64) }, "vsa");
  assert.ok(a.predicateType === "https://slsa.dev/verification_summary/v1");
  assert.ok(b.predicateType === "https://slsa.dev/verification_summary/v1");
  assert.equal(a.predicate.policy.uri, "urn:vouch:contract:sha256:" + "c".repeat(64));
  assert.notEqual(a.predicate.policy.uri, b.predicate.policy.uri);
});
