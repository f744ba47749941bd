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
