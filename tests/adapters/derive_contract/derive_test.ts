import assert from "node:assert/strict";
import {
  contractFromVerifyCommand,
  deriveContract,
  DeriveError,
  extractJsonText,
  failureObserver,
  type GenerateRequest,
  intentTargetsTests,
} from "../../../adapters/derive_contract/mod.ts";
import type { VerifyCommand } from "../../../adapters/verify_command/mod.ts";

const VERIFY: VerifyCommand = {
  run: { argv: ["cargo", "test"] },
  source: "Cargo.toml",
  tests: "cargo",
};
const GOOD = '{"checks":[{"name":"tests","run":["cargo","test"],"tests":"cargo"}]}';

Deno.test("repair loop: validation errors and the previous answer are fed back; model changes on retry", async () => {
  const seen: GenerateRequest[] = [];
  const answers = [
    "not json at all",
    '{"checks":[{"name":"x","run":[]}]}',
    "```json\n" + GOOD + "\n```",
  ];
  const d = await deriveContract(
    "add a flag",
    { text: "rust crate", verify: VERIFY },
    (req) => {
      seen.push(req);
      return Promise.resolve(answers[req.attempt - 1]!);
    },
    { maxAttempts: 3, models: ["small", "large"] },
  );
  assert.equal(d.source, "generator");
  assert.equal(d.contract.checks[0]!.name, "tests");
  assert.deepEqual(seen.map((r) => r.model), ["small", "large", "large"]);
  assert.deepEqual(seen.map((r) => r.attempt), [1, 2, 3]);
  assert.equal(seen[0]!.previous, null);
  assert.deepEqual(seen[0]!.errors, []);
  assert.equal(seen[1]!.previous, "not json at all");
  assert.match(seen[1]!.errors.join("\n"), /not JSON/);
  assert.match(seen[2]!.errors.join("\n"), /checks\.0\.run/);
  assert.equal((seen[0]!.schema as { type: string }).type, "object");
  assert.deepEqual(d.attempts.map((a) => a.errors.length > 0), [true, true, false]);
  assert.equal(d.targetsTests, false);
});

Deno.test("bounded: exhausted attempts and a failing generator are typed errors", async () => {
  let calls = 0;
  await assert.rejects(
    () =>
      deriveContract(
        "x",
        { text: "", verify: null },
        () => (calls++, Promise.resolve('{"checks":[]}')),
        {
          maxAttempts: 2,
        },
      ),
    (e) => e instanceof DeriveError && e.code === "derive_exhausted" && e.attempts.length === 2,
  );
  assert.equal(calls, 2);
  await assert.rejects(
    () =>
      deriveContract(
        "x",
        { text: "", verify: null },
        () => Promise.reject(new Error("rate limited")),
      ),
    (e) => e instanceof DeriveError && e.code === "derive_generator_failed",
  );
});

Deno.test("without a generator: the verify command's contract, or a typed error", async () => {
  const d = await deriveContract("add a flag", { text: "", verify: VERIFY }, null);
  assert.equal(d.source, "verify-command");
  assert.deepEqual(d.contract, contractFromVerifyCommand(VERIFY));
  assert.equal(d.contract.checks[0]!.tests, "cargo");
  await assert.rejects(
    () => deriveContract("add a flag", { text: "", verify: null }, null),
    (e) => e instanceof DeriveError && e.code === "derive_no_verify_command",
  );
});

Deno.test("test-targeting intents observe the real failures first and fold them into the summary", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const verify: VerifyCommand = {
      run: {
        shell:
          "echo 'test a::b ... FAILED'; echo 'test c::d ... FAILED'; echo 'test result: FAILED. 0 passed; 2 failed;'; exit 101",
      },
      source: "explicit",
      tests: "cargo",
    };
    const observe = failureObserver({ cwd: dir, sandbox: { kind: "none" }, timeoutMs: 10_000 });
    let seenSummary: GenerateRequest["summary"] | null = null;
    const d = await deriveContract(
      "Make the failing tests pass",
      { text: "", verify },
      (req) => {
        seenSummary = req.summary;
        return Promise.resolve(GOOD);
      },
      { observeFailures: observe },
    );
    assert.equal(d.targetsTests, true);
    assert.deepEqual(seenSummary!.failingTests, ["a::b", "c::d"]);
    assert.deepEqual(d.summary.failingTests, ["a::b", "c::d"]);
    // Not a test-targeting intent: no observation.
    let observed = false;
    await deriveContract("add a flag", { text: "", verify }, null, {
      observeFailures: () => (observed = true, Promise.resolve([])),
    });
    assert.equal(observed, false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("intentTargetsTests and extractJsonText", () => {
  for (
    const yes of [
      "make the failing tests pass",
      "Fix the broken tests",
      "tests are failing on main",
      "get the test suite green again",
      "CI is red, fix it",
    ]
  ) {
    assert.ok(intentTargetsTests(yes), yes);
  }
  for (
    const no of [
      "add a test for parseFoo",
      "rename the module",
      "document the CLI",
      "write tests for the parser",
    ]
  ) {
    assert.ok(!intentTargetsTests(no), no);
  }
  assert.equal(extractJsonText('sure! {"a": {"b": 1}} done'), '{"a": {"b": 1}}');
  assert.equal(extractJsonText("nothing"), "nothing");
});
