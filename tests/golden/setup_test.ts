/**
 * Contract `setup` end to end through the real CLI: a patch that adds an npm
 * dependency is verified only because setup (`npm install`, from the real
 * registry) runs in the clean tree, and only with `--allow-setup-network`.
 * Under bwrap the setup receipts record `bwrap+network` while the checks stay
 * without network; without bwrap the runs use the explicit `none` profile.
 */
import assert from "node:assert/strict";
import { createRepo, type FixtureRepo } from "./fixture_repos.ts";
import { e2e, runVouch } from "./cli_harness.ts";
import { inspectLog } from "../../adapters/audit/audit_log.ts";
import { loadOrCreateMacKey } from "../../adapters/keys/mac_key.ts";
import { readLogFile } from "../../adapters/log/store.ts";

const script = (value: unknown) => JSON.stringify(value) + "\n";
const NPM_INSTALL = "npm install --no-audit --no-fund --ignore-scripts --no-package-lock";
const MANIFEST = '{"name":"vouch-golden-setup","version":"1.0.0","private":true}\n';
const WITH_DEP = ['"private":true}', '"private":true,"dependencies":{"is-number":"7.0.0"}}'];

/**
 * A Node project whose test needs `is-number`, which package.json does not
 * declare (so the tests fail), plus the contract and the fake agent's script
 * (add the dependency to package.json).
 */
function createSetupRepo(setup: Record<string, unknown>): Promise<FixtureRepo> {
  return createRepo(
    {
      "package.json": MANIFEST,
      "index.js":
        "function double(x) {\n  return Number(x) * 2;\n}\n\nmodule.exports = { double };\n",
      "test/double.test.js": [
        'const test = require("node:test");',
        'const assert = require("node:assert/strict");',
        'const isNumber = require("is-number");',
        'const { double } = require("../index.js");',
        "",
        'test("double doubles numbers", () => {',
        '  assert.ok(isNumber("7"));',
        '  assert.equal(double("7"), 14);',
        "});",
        "",
      ].join("\n"),
      "vouch.contract.json": JSON.stringify({
        description: "the tests pass with the dependencies package.json declares",
        setup,
        checks: [{ name: "tests", run: "node --test", timeout: 120 }],
        protect: ["test/**"],
      }),
      ".vouch-fake-agent.json": script({
        mode: "fix",
        edits: [{ path: "package.json", replace: WITH_DEP }],
      }),
    },
    "node --test",
    { prefix: "vouch-golden-setup-", ignored: ["node_modules/"] },
  );
}

const NETWORK_SETUP = { commands: [NPM_INSTALL], network: "allow", timeout: 300 };
const RUN_ARGS = ["--backend", "claude", "--goal", "make the tests pass"];

interface ReceiptBody {
  tool: string;
  sandboxProfile: string;
  exit: { code: number };
}

/**
 * The receipts of the log (bodies of `tool.receipt` records) as `vouch inspect`
 * lists them; with `state`, their MACs are verified with the run's key too
 * (`e2e` already does that for `vouch run`).
 */
async function receiptsOf(repo: FixtureRepo, state?: string): Promise<ReceiptBody[]> {
  const key = state === undefined ? null : await loadOrCreateMacKey({
    repoRoot: repo.dir,
    env: { VOUCH_KEY_FILE: `${state}/key` },
    create: false,
  });
  const report = await inspectLog(`${repo.dir}/.vouch/events.jsonl`, { key });
  if (key !== null) assert.equal(report.verdict, "verified");
  const tools = report.tasks.flatMap((t) => t.receipts.map((r) => r.tool));
  const log = await readLogFile(`${repo.dir}/.vouch/events.jsonl`);
  const bodies = log.records.filter((r) => r.kind === "tool.receipt").map((r) =>
    r.body as unknown as ReceiptBody
  );
  assert.deepEqual(bodies.map((b) => b.tool), tools, "inspect lists every receipt of the log");
  return bodies;
}

function assertSetupReceipts(receipts: ReceiptBody[], phases: string[]): void {
  const setup = receipts.filter((r) => r.tool.includes(":setup:"));
  assert.deepEqual(setup.map((r) => r.tool), phases.map((p) => `${p}:setup:1`));
  for (const r of setup) {
    assert.equal(r.exit.code, 0);
    assert.ok(
      r.sandboxProfile === "bwrap+network" || r.sandboxProfile === "none",
      r.sandboxProfile,
    );
  }
  const checks = receipts.filter((r) => r.tool.endsWith(":tests"));
  assert.ok(checks.length > 0);
  // Checks never get the network: same sandbox kind as setup, never `+network`.
  for (const r of checks) assert.equal(r.sandboxProfile.includes("+network"), false);
  if (setup[0]?.sandboxProfile === "none") {
    console.warn("bwrap unavailable: setup ran with the explicit `none` sandbox");
  }
}

Deno.test("golden setup: a patch adding an npm dependency verifies with setup `npm install` and --allow-setup-network", async () => {
  await e2e(
    () => createSetupRepo(NETWORK_SETUP),
    [...RUN_ARGS, "--contract", "vouch.contract.json", "--allow-setup-network"],
    { state: "verified", code: 0 },
    async (repo, run) => {
      const rounds = run.json?.["rounds"] as { filesChanged: string[] }[];
      assert.deepEqual(rounds.at(-1)?.filesChanged, ["package.json"]);
      assertSetupReceipts(await receiptsOf(repo), ["baseline", "round"]);
    },
  );
});

Deno.test("golden setup: the same contract without --allow-setup-network is refused before anything runs", async () => {
  await e2e(
    () => createSetupRepo(NETWORK_SETUP),
    [...RUN_ARGS, "--contract", "vouch.contract.json"],
    // vouch could not judge the task (the contract cannot run on the base): exit 5.
    { state: "could_not_run", code: 5 },
    async (repo, run) => {
      assert.equal(run.json?.["reason"], "setup_network_not_allowed", run.stdout);
      assert.deepEqual(run.json?.["rounds"], [], "nothing was sent to the backend");
      const log = await readLogFile(`${repo.dir}/.vouch/events.jsonl`);
      assert.equal(log.records.filter((r) => r.kind === "tool.receipt").length, 0, "nothing ran");
    },
  );
});

Deno.test("golden setup: a setup command that exits 1 fails closed with setup_failed", async () => {
  await e2e(
    () => createSetupRepo({ commands: ["echo cannot reach the registry >&2; exit 1"] }),
    [...RUN_ARGS, "--contract", "vouch.contract.json"],
    { state: "could_not_run", code: 5 },
    async (repo, run) => {
      assert.equal(run.json?.["reason"], "setup_failed", run.stdout);
      const baseline = run.json?.["baseline"] as { name: string; outputTail: string }[];
      assert.match(baseline[0]?.name ?? "", /^setup: echo cannot reach/);
      assert.match(baseline[0]?.outputTail ?? "", /cannot reach the registry/);
      const log = await readLogFile(`${repo.dir}/.vouch/events.jsonl`);
      const tools = log.records.filter((r) => r.kind === "tool.receipt").map((r) =>
        (r.body as unknown as ReceiptBody).tool
      );
      assert.deepEqual(
        tools,
        ["baseline:setup:1"],
        "the failing setup has its receipt; no check ran",
      );
    },
  );
});

Deno.test("golden setup: vouch verify of a dependency patch: refused without setup, setup_failed, verified with setup", async () => {
  const repo = await createSetupRepo(NETWORK_SETUP);
  const state = await Deno.makeTempDir({ prefix: "vouch-e2e-state-" });
  try {
    const patch = [
      "diff --git a/package.json b/package.json",
      "--- a/package.json",
      "+++ b/package.json",
      "@@ -1 +1 @@",
      "-" + MANIFEST.trimEnd(),
      "+" + MANIFEST.trimEnd().replace(WITH_DEP[0]!, WITH_DEP[1]!),
      "",
    ].join("\n");
    await Deno.writeTextFile(`${state}/deps.patch`, patch);
    const noSetup = JSON.stringify({ checks: [{ name: "tests", run: "node --test" }] });
    await Deno.writeTextFile(`${state}/nosetup.json`, noSetup);
    await Deno.writeTextFile(
      `${state}/failing.json`,
      JSON.stringify({ setup: { commands: [["false"]] }, checks: [{ name: "t", run: "true" }] }),
    );
    const verify = (...args: string[]) =>
      runVouch(repo, ["verify", "--json", "--patch", `${state}/deps.patch`, ...args], state);

    const refused = await verify("--contract", `${state}/nosetup.json`);
    assert.equal(refused.code, 1, refused.stderr);
    // (`vouch verify` lists `checks_failed` after any refusal of the run.)
    assert.equal((refused.json?.["reasons"] as string[])[0], "dependency_change_needs_setup");

    const failed = await verify("--contract", `${state}/failing.json`);
    assert.equal(failed.code, 1, failed.stderr);
    assert.equal((failed.json?.["reasons"] as string[])[0], "setup_failed");
    const checks = failed.json?.["checks"] as { name: string; outcome: string }[];
    assert.deepEqual(checks.map((c) => [c.name, c.outcome]), [["setup: false", "setup_failed"]]);

    const denied = await verify("--contract", "vouch.contract.json");
    assert.equal(denied.code, 1);
    assert.equal((denied.json?.["reasons"] as string[])[0], "setup_network_not_allowed");

    const ok = await verify("--contract", "vouch.contract.json", "--allow-setup-network");
    assert.equal(ok.code, 0, ok.stderr + ok.stdout);
    assert.equal(ok.json?.["verdict"], "verified");
    const receipts = await receiptsOf(repo, state);
    assertSetupReceipts(receipts.filter((r) => r.exit.code === 0), ["baseline", "round"]);
    const setup = receipts.filter((r) => r.tool === "round:setup:1");
    // One failing setup (exit 1), one successful `npm install`.
    assert.deepEqual(setup.map((r) => r.exit.code), [1, 0]);
  } finally {
    await repo.cleanup();
    await Deno.remove(state, { recursive: true }).catch(() => {});
  }
});
