import assert from "node:assert/strict";
import { VerificationResultSchema } from "../../adapters/bundle/schemas.ts";
import type { CliIo } from "../../cli/command.ts";
import { runCli } from "../../cli/main.ts";
import { BUNDLE_FIXTURES, evaluateArgs, materializeFixture } from "../redteam/bundles/fixtures.ts";

function bufferIo(): CliIo & { stdout: string; stderr: string } {
  const io = {
    stdout: "",
    stderr: "",
    isTerminal: false,
    out(text: string) {
      io.stdout += text;
    },
    err(text: string) {
      io.stderr += text;
    },
  };
  return io;
}

async function withFixture(
  name: string,
  fn: (paths: { bundleDir: string; workUnitPath: string; planPath: string }) => Promise<void>,
): Promise<void> {
  const f = BUNDLE_FIXTURES.find((x) => x.name === name)!;
  const base = await Deno.makeTempDir({ prefix: `vouch-cli-evaluate-${name}-` });
  try {
    await fn(await materializeFixture(f, base));
  } finally {
    await Deno.remove(base, { recursive: true });
  }
}

Deno.test("vouch evaluate --json: exit 0 and a valid VerificationResult for the good bundle", async () => {
  await withFixture("good", async (paths) => {
    const io = bufferIo();
    const code = await runCli([...evaluateArgs(paths), "--json"], io);
    assert.equal(code, 0, io.stderr);
    const result = VerificationResultSchema.parse(JSON.parse(io.stdout));
    assert.equal(result.decision_support.recommendation, "accept_candidate");
  });
});

Deno.test("vouch evaluate: exit 1 with a readable summary for a forbidden path", async () => {
  await withFixture("forbidden-path", async (paths) => {
    const io = bufferIo();
    const code = await runCli(evaluateArgs(paths), io);
    assert.equal(code, 1);
    assert.match(io.stdout, /^recommendation: reject_candidate \(failed, confidence high\)/);
    assert.match(io.stdout, /scope_violation \["SECURITY\.md"\]/);
    assert.match(io.stdout, /failed\s+independent-review/);
  });
});

Deno.test("vouch evaluate: exit 1 for escalate and insufficient_evidence", async () => {
  await withFixture("verifier-is-worker", async (paths) => {
    const io = bufferIo();
    assert.equal(await runCli([...evaluateArgs(paths), "--json"], io), 1);
    assert.equal(JSON.parse(io.stdout).decision_support.recommendation, "escalate");
  });
  await withFixture("good", async (paths) => {
    const io = bufferIo();
    const args = evaluateArgs({ ...paths, planPath: `${paths.planPath}.missing` });
    assert.equal(await runCli([...args, "--json"], io), 1);
    const result = JSON.parse(io.stdout);
    assert.equal(result.decision_support.recommendation, "insufficient_evidence");
    assert.deepEqual(result.decision_support.reason_codes, ["plan_invalid"]);
  });
});

Deno.test("vouch evaluate: exit 2 on usage errors", async () => {
  for (
    const args of [
      ["evaluate"],
      ["evaluate", "--bundle", "x", "--plan", "p"],
      ["evaluate", "--bundle", "x", "--work-unit", "w"],
      ["evaluate", "--bundle", "x", "--work-unit", "w", "--plan", "p", "--bogus"],
      ["evaluate", "--bundle", "x", "--work-unit", "w", "--plan", "p", "extra"],
    ]
  ) {
    const io = bufferIo();
    assert.equal(await runCli(args, io), 2, args.join(" "));
    assert.equal(io.stdout, "");
    assert.match(io.stderr, /vouch evaluate:/);
  }
  const help = bufferIo();
  assert.equal(await runCli(["evaluate", "--help"], help), 0);
  assert.match(help.stdout, /--work-unit FILE/);
});

Deno.test("deno task vouch evaluate prints only the result on stdout", async () => {
  await withFixture("good", async (paths) => {
    const config = new URL("../../deno.json", import.meta.url).pathname;
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["task", "-q", "--config", config, "vouch", ...evaluateArgs(paths), "--json"],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const result = VerificationResultSchema.parse(JSON.parse(new TextDecoder().decode(out.stdout)));
    assert.equal(result.decision_support.recommendation, "accept_candidate");
  });
});
