import assert from "node:assert/strict";
import fc from "fast-check";
import { redactSecrets } from "../../../adapters/redact/mod.ts";

const secrets: [string, string, string][] = [
  ["authorization", "Authorization: Bearer s3cr3t-t0ken-value", "s3cr3t-t0ken-value"],
  ["authorization", "authorization: token abcdef123456", "abcdef123456"],
  ["aws_access_key", "key AKIAIOSFODNN7EXAMPLE here", "AKIAIOSFODNN7EXAMPLE"],
  ["github_token", "use ghp_0123456789abcdefghijABCDEFGHIJ012345", "ghp_0123456789abcdefghij"],
  [
    "github_token",
    "github_pat_11AAAAAAA0123456789_abcdefghijklmnopqrstuvwxyzABCDEFG",
    "github_pat_11",
  ],
  [
    "jwt",
    "token=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "dozjgNryP4J3jVmNHl0w5N",
  ],
  [
    "private_key",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
    "MIIEowIBAAKCAQEA",
  ],
  ["private_key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk (cut", "b3BlbnNzaC1rZXk"],
  ["secret_assignment", "export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG", "wJalrXUtnFEMI"],
  ["secret_assignment", '{"api_key": "abcd1234efgh"}', "abcd1234efgh"],
  ["secret_assignment", "DB_PASSWORD='hunter22'", "hunter22"],
  ["url_credentials", "git clone https://user:pa55word@example.com/r.git", "pa55word"],
  ["openai_key", "OPENAI=sk-proj-abcdefghijklmnopqrstuvwx", "abcdefghijklmnopqrstuvwx"],
  ["slack_token", "xoxb-123456789012-abcdefghij", "abcdefghij"],
];

Deno.test("redactSecrets() masks every kind of secret-looking value", () => {
  for (const [, input, secret] of secrets) {
    const { text, masked } = redactSecrets(input);
    assert.ok(!text.includes(secret), `${input} -> ${text}`);
    assert.ok(Object.keys(masked).length > 0);
  }
});

Deno.test("redactSecrets() keeps labels and ordinary text", () => {
  assert.equal(
    redactSecrets("Authorization: Bearer abc123def").text,
    "Authorization: Bearer [redacted:authorization]",
  );
  const plain = "ok 12 tests passed (3ms); see src/token_parser.ts line 40";
  assert.equal(redactSecrets(plain).text, plain);
  assert.deepEqual(redactSecrets(plain).masked, {});
});

Deno.test("redactSecrets() is idempotent and never throws (property)", () => {
  fc.assert(
    fc.property(
      fc.string({ maxLength: 300 }),
      fc.constantFrom(...secrets.map((s) => s[1])),
      (a, s) => {
        const once = redactSecrets(a + " " + s + " " + a).text;
        assert.equal(redactSecrets(once).text, once);
      },
    ),
    { numRuns: 200 },
  );
});

// Transcripts are JSON lines: masking must keep them JSON (issue #11).
Deno.test("redactSecrets() keeps numbers and variable names: the Claude Code lines stay as they are", () => {
  const lines = [
    '{"modelUsage":{"claude-opus-5-5":{"inputTokens":306,"contextWindow":1000000,"maxOutputTokens":128000}}}',
    '{"type":"system","subtype":"init","apiKeySource":"ANTHROPIC_API_KEY","session_id":"b04bff7b"}',
    '{"usage":{"input_tokens":403,"cached_input_tokens":100,"reasoning_output_tokens":22,"total_tokens":230}}',
    "API_KEY=$OPENAI_API_KEY TOKEN=${GH_TOKEN} SECRET_NAME=DB_PASSWORD_FILE",
  ];
  for (const line of lines) {
    assert.equal(redactSecrets(line).text, line);
    assert.deepEqual(redactSecrets(line).masked, {});
  }
});

Deno.test("redactSecrets() still masks secrets inside JSON, and escaped JSON inside JSON strings", () => {
  const cases: [string, string][] = [
    ['{"api_key":"abcd1234efgh","n":1}', "abcd1234efgh"],
    [JSON.stringify({ input: JSON.stringify({ password: "hunter22hunter" }) }), "hunter22hunter"],
    [
      JSON.stringify({ k: "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END" }),
      "MIIEow",
    ],
    [JSON.stringify({ cmd: "curl -H 'Authorization: Bearer abcdef0123456789xyz'" }), "abcdef0123"],
    [JSON.stringify({ url: "https://u:pa55word@example.com/x", v: "b@c" }), "pa55word"],
  ];
  for (const [line, secret] of cases) {
    const out = redactSecrets(line).text;
    assert.ok(!out.includes(secret), out);
    JSON.parse(out);
  }
});

const keyNames = fc.constantFrom(
  "maxOutputTokens",
  "apiKeySource",
  "api_key",
  "API_KEY",
  "token",
  "password",
  "Authorization",
  "secret",
  "url",
  "text",
  "x",
);
const secretish = fc.constantFrom(
  "ghp_0123456789abcdefghijABCDEFGHIJ012345",
  "sk-ant-abcdefghijklmnopqrstuvwxyz012",
  "AKIAIOSFODNN7EXAMPLE",
  "Bearer abcdef0123456789xyz",
  "Authorization: Basic dXNlcjpwYXNzd29yZA==",
  "https://user:pa55word@example.com/r.git",
  "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
  "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn",
  'TOKEN=abc\\"def',
  'password="hunter22"',
  "ANTHROPIC_API_KEY",
);
const leaf = fc.oneof(
  fc.jsonValue({ maxDepth: 0 }),
  secretish,
  fc.tuple(fc.string({ maxLength: 8 }), secretish, fc.string({ maxLength: 8 })).map((p) =>
    p.join("")
  ),
);
const tree = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small" },
    leaf,
    fc.array(tie("node"), { maxLength: 4 }),
    fc.dictionary(keyNames, tie("node"), { maxKeys: 5 }),
    // a JSON document carried as a string (tool inputs, nested transcripts)
    fc.dictionary(keyNames, leaf, { maxKeys: 3 }).map((o) => JSON.stringify(o)),
  ),
})).node;

Deno.test("redactSecrets(): redacting a JSON line yields valid JSON (property)", () => {
  fc.assert(
    fc.property(tree, (value) => {
      const line = JSON.stringify(value);
      const out = redactSecrets(line).text;
      try {
        JSON.parse(out);
      } catch (error) {
        throw new Error(`not JSON after redaction:\n${line}\n${out}\n${error}`);
      }
      // Masking is still idempotent on what it produced.
      assert.equal(redactSecrets(out).text, out);
    }),
    { numRuns: 1000 },
  );
});
