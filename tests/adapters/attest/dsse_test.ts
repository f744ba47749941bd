/**
 * DSSE as the spec says (secure-systems-lab/dsse protocol.md + envelope.md):
 * the spec's PAE vector, RFC 8032 Ed25519 known answers, keyid as a hint only,
 * both base64 alphabets, every signature tried; and interop both ways with an
 * independent implementation (the OpenSSL CLI: `openssl pkeyutl -rawin`).
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  buildVerificationStatement,
  type DsseEnvelope,
  openDsse,
  pae,
  signDsse,
  signStatement,
  summarizeStatement,
  verifyEnvelope,
} from "../../../adapters/attest/mod.ts";
import { canonicalJson } from "../../../adapters/canonical_json/mod.ts";
import {
  generateSigningKey,
  importPublicKey,
  type SigningKey,
} from "../../../adapters/keys/mod.ts";

// RFC 8032 §7.1 TEST 1.
const RFC8032_SEED = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
const RFC8032_PUB = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
const RFC8032_EMPTY_SIG = "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155" +
  "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b";
// Ed25519 (RFC 8032 TEST 1 key) over the DSSE spec's PAE vector
// "DSSEv1 29 http://example.com/HelloWorld 11 hello world", computed with
// python `cryptography` (OpenSSL) when this test was written.
const SPEC_VECTOR_SIG =
  "4DHX3Zn4qpBKvEj7maE8O9u9bjXEnPLLnyXVUJ2PXJR8DSLcL3QDpFvfJOj3pB/SPHsl6Jg4boxsMb6KvuYABw==";

const PKCS8_ED25519_PREFIX = "302e020100300506032b657004220420";
const SPKI_ED25519_PREFIX = "302a300506032b6570032100";

async function rfc8032Key(): Promise<SigningKey> {
  const privateKey = await crypto.subtle.importKey(
    "pkcs8",
    Buffer.from(PKCS8_ED25519_PREFIX + RFC8032_SEED, "hex"),
    { name: "Ed25519" },
    false,
    ["sign"],
  );
  const spki = Buffer.from(SPKI_ED25519_PREFIX + RFC8032_PUB, "hex");
  const pem = `-----BEGIN PUBLIC KEY-----\n${spki.toString("base64")}\n-----END PUBLIC KEY-----\n`;
  const pub = await importPublicKey(pem);
  return { keyId: pub.keyId, privateKey, publicKey: pub.cryptoKey, publicKeyPem: pem, path: "" };
}

const helloType = "http://example.com/HelloWorld";
const hello = new TextEncoder().encode("hello world");

Deno.test("DSSE: the spec's PAE vector and RFC 8032 known answers", async () => {
  assert.equal(
    new TextDecoder().decode(pae(helloType, hello)),
    "DSSEv1 29 http://example.com/HelloWorld 11 hello world",
  );
  const key = await rfc8032Key();
  const empty = await crypto.subtle.sign("Ed25519", key.privateKey, new Uint8Array());
  assert.equal(Buffer.from(empty).toString("hex"), RFC8032_EMPTY_SIG);
  const env = await signDsse(helloType, hello, key);
  assert.deepEqual(env, {
    payload: "aGVsbG8gd29ybGQ=",
    payloadType: helloType,
    signatures: [{ keyid: key.keyId, sig: SPEC_VECTOR_SIG }],
  });
  const opened = await openDsse(
    { payload: "aGVsbG8gd29ybGQ=", payloadType: helloType, signatures: [{ sig: SPEC_VECTOR_SIG }] },
    await importPublicKey(key.publicKeyPem),
  );
  assert.equal(new TextDecoder().decode(opened.payload), "hello world");
});

Deno.test("DSSE: keyid is only a hint, every signature is tried, both base64 alphabets", async () => {
  const key = await generateSigningKey();
  const other = await generateSigningKey();
  const pub = await importPublicKey(key.publicKeyPem);
  // bytes whose base64 differs between the alphabets ("+/" vs "-_")
  const payload = new Uint8Array([0xfb, 0xff, 0xbf, 0x3e, 0x3f, 0x7e]);
  const env = await signDsse("application/octet-stream", payload, key);
  const sig = env.signatures[0]!.sig;
  const urlSig = Buffer.from(sig, "base64").toString("base64url");
  const urlPayload = Buffer.from(payload).toString("base64url");
  assert.notEqual(urlPayload, env.payload.replace(/=+$/, ""));
  const foreign = (await signDsse("application/octet-stream", payload, other)).signatures[0]!;
  const cases: [string, DsseEnvelope][] = [
    ["no keyid", { ...env, signatures: [{ sig }] }],
    ["another keyid convention", { ...env, signatures: [{ keyid: "SHA256:abc", sig }] }],
    ["empty keyid", { ...env, signatures: [{ keyid: "", sig }] }],
    ["URL-safe payload", { ...env, payload: urlPayload }],
    ["URL-safe signature", { ...env, signatures: [{ sig: urlSig }] }],
    ["unpadded standard", { ...env, payload: env.payload.replace(/=+$/, "") }],
    ["ours after a foreign one", { ...env, signatures: [foreign, { keyid: "k2", sig }] }],
    ["foreign one labelled with our keyid first", {
      ...env,
      signatures: [{ keyid: key.keyId, sig: foreign.sig }, { sig }],
    }],
  ];
  for (const [name, e] of cases) {
    const opened = await openDsse(JSON.parse(JSON.stringify(e)), pub);
    assert.deepEqual([...opened.payload], [...payload], name);
  }
  const reject = (e: unknown, code: string) => assert.rejects(openDsse(e, pub), { code });
  await reject({ ...env, signatures: [foreign] }, "no_signature");
  await reject({ ...env, signatures: [{ keyid: key.keyId, sig: foreign.sig }] }, "bad_signature");
  await reject({ ...env, payload: "+_8" }, "schema"); // mixed alphabets
  await reject({ ...env, payload: "a" }, "schema"); // impossible length
  await reject({ ...env, signatures: [{ keyid: 7, sig }] }, "schema");
  await reject({ ...env, signatures: [] }, "schema");
  // a tampered payload fails whichever alphabet carries it
  const tampered = Buffer.from([1, ...payload]);
  await reject({ ...env, payload: tampered.toString("base64url") }, "bad_signature");
  await reject(
    { ...env, payload: tampered.toString("base64"), signatures: [{ sig }] },
    "no_signature",
  );
});

function openssl(): boolean {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const hasOpenssl = openssl();
if (!hasOpenssl) console.log("dsse_test: openssl not on PATH; OpenSSL interop tests skip");

function verifiedStatement() {
  return buildVerificationStatement({
    v: 1,
    task: "t1",
    baseRevision: "0123456789abcdef0123456789abcdef01234567",
    patchDigest: "sha256:" + "a".repeat(64),
    contractDigest: "sha256:" + "b".repeat(64),
    checks: [],
    receipts: [],
    passedAt: 0,
    backend: "fn",
    sandboxProfile: "none",
    logAnchor: { seq: 1, hash: "c".repeat(64) },
    keyId: "hmac-sha256:x",
    mac: "d".repeat(64),
  });
}

Deno.test({
  name: "DSSE interop: OpenSSL verifies vouch's envelope and key",
  ignore: !hasOpenssl,
  fn: async () => {
    const dir = mkdtempSync(join(tmpdir(), "vouch-dsse-"));
    try {
      const key = await generateSigningKey();
      const env = await signStatement(verifiedStatement(), key);
      writeFileSync(join(dir, "pub.pem"), key.publicKeyPem);
      writeFileSync(
        join(dir, "pae.bin"),
        pae(env.payloadType, Buffer.from(env.payload, "base64")),
      );
      writeFileSync(join(dir, "sig.bin"), Buffer.from(env.signatures[0]!.sig, "base64"));
      const verify = (pae: string) =>
        execFileSync("openssl", [
          "pkeyutl",
          "-verify",
          "-pubin",
          "-inkey",
          join(dir, "pub.pem"),
          "-rawin",
          "-in",
          join(dir, pae),
          "-sigfile",
          join(dir, "sig.bin"),
        ], { encoding: "utf8" });
      assert.match(verify("pae.bin"), /Signature Verified Successfully/);
      // and OpenSSL rejects a one-byte change of the signed bytes
      const changed = readFileSync(join(dir, "pae.bin"));
      changed[changed.length - 2] = changed[changed.length - 2]! ^ 1;
      writeFileSync(join(dir, "changed.bin"), changed);
      assert.throws(() => verify("changed.bin"));
      // the keyid is the SHA-256 of the SPKI DER OpenSSL derives from the PEM
      const der = execFileSync("openssl", [
        "pkey",
        "-pubin",
        "-in",
        join(dir, "pub.pem"),
        "-outform",
        "DER",
      ]);
      const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new Uint8Array(der)));
      assert.equal(env.signatures[0]!.keyid, Buffer.from(digest).toString("hex"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
});

Deno.test({
  name:
    "DSSE interop: vouch verifies envelopes signed by OpenSSL (no keyid, URL-safe, foreign keyid)",
  ignore: !hasOpenssl,
  fn: async () => {
    const dir = mkdtempSync(join(tmpdir(), "vouch-dsse-"));
    try {
      const run = (...args: string[]) => execFileSync("openssl", args, { cwd: dir });
      run("genpkey", "-algorithm", "ed25519", "-out", "key.pem");
      run("pkey", "-in", "key.pem", "-pubout", "-out", "pub.pem");
      const payload = new TextEncoder().encode(canonicalJson(verifiedStatement()));
      writeFileSync(join(dir, "pae.bin"), pae("application/vnd.in-toto+json", payload));
      run("pkeyutl", "-sign", "-inkey", "key.pem", "-rawin", "-in", "pae.bin", "-out", "sig.bin");
      const sig = readFileSync(join(dir, "sig.bin"));
      const pub = await importPublicKey(readFileSync(join(dir, "pub.pem"), "utf8"));
      const envelopes = [
        { payload: Buffer.from(payload).toString("base64"), sig: sig.toString("base64") },
        { payload: Buffer.from(payload).toString("base64url"), sig: sig.toString("base64url") },
      ].flatMap(({ payload, sig }) => [
        { payload, payloadType: "application/vnd.in-toto+json", signatures: [{ sig }] },
        {
          payload,
          payloadType: "application/vnd.in-toto+json",
          signatures: [{ keyid: "openssl:ed25519:1", sig }],
        },
      ]);
      for (const env of envelopes) {
        const { statement } = await verifyEnvelope(env, pub);
        assert.equal(summarizeStatement(statement).vouch.task, "t1");
      }
      // the same signature under another key is refused
      await assert.rejects(
        verifyEnvelope(
          envelopes[0],
          await importPublicKey((await generateSigningKey()).publicKeyPem),
        ),
        { code: "no_signature" },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
});
