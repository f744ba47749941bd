// deno-lint-ignore-file no-explicit-any -- the tests poke at parsed JSON documents field by field
/**
 * `vouch attest export --predicate vouch|vsa|test-result`: each exported
 * statement is checked with ajv (an independent validator) against the spec's
 * field rules written as JSON Schemas (schemas/slsa-verification-summary-v1,
 * in-toto-test-result-v0.1, in-toto-statement-v1, dsse-envelope), then verified
 * back with `vouch attest verify`. The schemas themselves are shown to reject
 * what the specs forbid, so a passing validation means something.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { runCli } from "../../cli/main.ts";
import { bufferIo, buildLogFixture } from "../cli/_log_fixture.ts";
import { assertValid, schemaErrors } from "./_ajv.ts";

async function cli(args: string[]) {
  const b = bufferIo();
  const code = await runCli(args, b.io);
  return { code, out: b.out, err: b.err };
}

async function withStateEnv<T>(state: string, fn: () => Promise<T>): Promise<T> {
  const saved = Deno.env.get("XDG_STATE_HOME");
  Deno.env.set("XDG_STATE_HOME", state);
  try {
    return await fn();
  } finally {
    if (saved === undefined) Deno.env.delete("XDG_STATE_HOME");
    else Deno.env.set("XDG_STATE_HOME", saved);
  }
}

const SCHEMA = {
  vouch: "vouch-verification-summary-v1.schema.json",
  vsa: "slsa-verification-summary-v1.schema.json",
  "test-result": "in-toto-test-result-v0.1.schema.json",
} as const;

type Exported = Record<keyof typeof SCHEMA, Record<string, unknown>>;

async function exportAll(): Promise<Exported> {
  const fx = await buildLogFixture();
  try {
    return await withStateEnv(fx.state, async () => {
      const out: Partial<Exported> = {};
      const pub = `${fx.root}/vouch.pub`;
      await Deno.writeFile(`${fx.root}/t1.diff`, fx.diff);
      for (const kind of Object.keys(SCHEMA) as (keyof typeof SCHEMA)[]) {
        const file = `${fx.root}/${kind}.json`;
        const extra = kind === "vsa"
          ? ["--policy-uri", "https://example.com/vouch.contract.json"]
          : [];
        const exported = await cli([
          "attest",
          "export",
          "--log",
          fx.logPath,
          "--predicate",
          kind,
          "--out",
          file,
          "--pub-out",
          pub,
          ...extra,
        ]);
        assert.equal(exported.code, 0, exported.err);
        const envelope = JSON.parse(await Deno.readTextFile(file));
        assertValid("dsse-envelope.schema.json", envelope, `${kind} envelope`);
        const statement = JSON.parse(Buffer.from(envelope.payload, "base64").toString("utf8"));
        assertValid(SCHEMA[kind], statement, `${kind} statement`);
        const verified = await cli([
          "attest",
          "verify",
          file,
          "--key",
          pub,
          "--patch",
          `${fx.root}/t1.diff`,
        ]);
        assert.equal(verified.code, 0, verified.out);
        assert.match(verified.out, /checks {4}unit pass/);
        const json = JSON.parse(
          (await cli(["attest", "verify", file, "--key", pub, "--json"])).out,
        );
        assert.deepEqual(json.statement, statement);
        out[kind] = statement;
      }
      const bad = await cli(["attest", "export", "--log", fx.logPath, "--predicate", "slsa"]);
      assert.equal(bad.code, 2);
      return out as Exported;
    });
  } finally {
    await fx.cleanup();
  }
}

const exported = await exportAll();

Deno.test("attest export --predicate vsa: a SLSA VSA v1 that passes the spec's field rules", () => {
  const s = exported.vsa as { predicate: Record<string, unknown>; subject: unknown[] };
  const p = s.predicate as Record<string, any>;
  assert.equal(p.verificationResult, "PASSED");
  assert.deepEqual(p.verifiedLevels, ["VOUCH_CONTRACT_PASSED"]);
  assert.equal(p.policy.uri, "https://example.com/vouch.contract.json");
  assert.match(p.policy.digest.sha256, /^[0-9a-f]{64}$/);
  assert.match(p.resourceUri, /^urn:vouch:patch:sha256:[0-9a-f]{64}$/);
  assert.equal(p["https://vouch.dev/attestation/extension/v1"].task, "t1");
  assert.ok(p.inputAttestations.length > 0);
  // the schema enforces the spec: each rule below is one the spec states
  const broken = (mutate: (p: Record<string, any>) => void) => {
    const copy = structuredClone(exported.vsa) as { predicate: Record<string, any> };
    mutate(copy.predicate);
    return schemaErrors(SCHEMA.vsa, copy);
  };
  assert.notDeepEqual(broken((p) => p.verifiedLevels = ["SLSA_VOUCH"]), []); // custom SLSA_ value
  assert.notDeepEqual(
    broken((p) => p.verifiedLevels = ["SLSA_BUILD_LEVEL_1", "SLSA_BUILD_LEVEL_2"]),
    [],
  ); // two levels of one track
  assert.notDeepEqual(broken((p) => delete p.policy.uri), []); // policy MUST contain a uri
  assert.notDeepEqual(broken((p) => delete p.resourceUri), []);
  assert.notDeepEqual(broken((p) => p.verificationResult = "OK"), []);
  assert.notDeepEqual(broken((p) => p.timeVerified = "yesterday"), []);
  assert.notDeepEqual(broken((p) => p.verificationResult = "FAILED"), []); // FAILED needs "FAILED" level
  assert.notDeepEqual(broken((p) => p.vouchTask = "t1"), []); // extension names must be URIs
  assert.notDeepEqual(broken((p) => p.inputAttestations = [{ uri: "urn:x" }]), []); // digest required
  assert.deepEqual(
    broken((p) => {
      p.verificationResult = "FAILED";
      p.verifiedLevels = ["FAILED"];
    }),
    [],
  );
});

Deno.test("attest export --predicate test-result: an in-toto test-result v0.1", () => {
  const p = (exported["test-result"] as { predicate: Record<string, any> }).predicate;
  assert.equal(p.result, "PASSED");
  assert.deepEqual(p.passedTests, ["unit"]);
  assert.deepEqual(p.failedTests, []);
  assert.equal(
    p.configuration[0].digest.sha256,
    (exported.vsa as any).predicate.policy.digest.sha256,
  );
  const broken = (mutate: (p: Record<string, any>) => void) => {
    const copy = structuredClone(exported["test-result"]) as { predicate: Record<string, any> };
    mutate(copy.predicate);
    return schemaErrors(SCHEMA["test-result"], copy);
  };
  assert.notDeepEqual(broken((p) => delete p.configuration), []);
  assert.notDeepEqual(broken((p) => p.result = "OK"), []);
  assert.notDeepEqual(broken((p) => p.failedTests = ["unit"]), []); // PASSED with a failure
  assert.notDeepEqual(broken((p) => p.url = "not a uri"), []);
  assert.notDeepEqual(broken((p) => p.checks = []), []); // non-URI extension field
});

Deno.test("attest export --predicate vouch (default): the statement and subject rules", () => {
  const s = exported.vouch as { subject: { digest: Record<string, string> }[] };
  assert.equal((exported.vouch as any).predicateType, "https://vouch.dev/verification-summary/v1");
  assert.deepEqual(exported.vouch.subject, exported.vsa.subject);
  assert.deepEqual(exported.vouch.subject, exported["test-result"].subject);
  const copy = structuredClone(s);
  copy.subject[0]!.digest = {};
  assert.notDeepEqual(schemaErrors(SCHEMA.vouch, copy), []); // a subject needs a digest
  copy.subject = [];
  assert.notDeepEqual(schemaErrors(SCHEMA.vouch, copy), []);
});
