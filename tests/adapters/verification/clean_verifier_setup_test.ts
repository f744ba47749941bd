import assert from "node:assert/strict";
import { createRepo, git } from "../../golden/fixture_repos.ts";
import { createCleanVerifier } from "../../../adapters/verification/clean_verifier.ts";
import { EventLog } from "../../../adapters/log/store.ts";
import { importMacKey } from "../../../adapters/keys/mac_key.ts";
import { ReceiptRecorder } from "../../../adapters/receipts/chain.ts";
import type { ToolReceipt } from "../../../adapters/receipts/receipt.ts";
import type { OutcomeContract } from "../../../kernel/contract/types.ts";
import type { SandboxRequirement } from "../../../adapters/host/sandbox_probe.ts";

const key = await importMacKey(new Uint8Array(32).fill(7), "test");

/** A patch adding a dependency manifest (`package.json`). */
const ADD_MANIFEST = new TextEncoder().encode(
  [
    "diff --git a/package.json b/package.json",
    "new file mode 100644",
    "--- /dev/null",
    "+++ b/package.json",
    "@@ -0,0 +1 @@",
    '+{ "name": "x", "version": "1.0.0" }',
    "",
  ].join("\n"),
);

const sh = (shell: string) => ({ shell });

function contract(setup: OutcomeContract["setup"]): OutcomeContract {
  return {
    description: "setup made the marker and the manifest is there",
    checks: [{
      name: "marker",
      run: { shell: "test -f setup-marker && cat setup-marker" },
      expect: [{ kind: "exit-zero" }],
      timeoutMs: 30_000,
      baseline: false,
      differential: null,
      tests: null,
    }],
    protect: [],
    ...(setup !== undefined ? { setup } : {}),
  };
}

interface Env {
  repo: string;
  base: string;
  root: string;
  log: EventLog;
  receipts: ReceiptRecorder;
}

async function withRepo(fn: (env: Env) => Promise<void>): Promise<void> {
  const repo = await createRepo({ "README.md": "# x\n" }, "true", { prefix: "vouch-setup-" });
  const root = await Deno.makeTempDir({ prefix: "vouch-setup-wt-" });
  const log = await EventLog.open(`${root}/events.jsonl`);
  try {
    const base = (await git(repo.dir, "rev-parse", "HEAD")).trim();
    const receipts = ReceiptRecorder.resume(log, key, log.openReport.lastReceipt);
    await fn({ repo: repo.dir, base, root: `${root}/trees`, log, receipts });
  } finally {
    await log.close();
    await repo.cleanup();
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
}

const SANDBOX: SandboxRequirement = "auto";
const signal = () => AbortSignal.timeout(120_000);

Deno.test("clean verifier: setup runs before the baseline and each verification, with receipts; a manifest-changing patch verifies", async () => {
  await withRepo(async (env) => {
    const verifier = createCleanVerifier({
      repo: env.repo,
      base: env.base,
      taskId: "t-setup",
      contract: contract({
        commands: [{ shell: "echo installed > setup-marker" }, { argv: ["true"] }],
        timeoutMs: 30_000,
        network: "deny",
      }),
      receipts: env.receipts,
      sandbox: SANDBOX,
      worktreeRoot: env.root,
    });
    const seen: string[] = [];
    const baseline = await verifier.baseline(signal(), (n) => seen.push(n));
    assert.equal(baseline.ran, true);
    assert.equal(baseline.passed, true, JSON.stringify(baseline.summaries));
    const tools = (rs: readonly ToolReceipt[]) => rs.map((r) => r.tool);
    assert.deepEqual(tools(baseline.receipts), [
      "baseline:setup:1",
      "baseline:setup:2",
      "baseline:marker",
    ]);
    const run = await verifier.verify(1, ADD_MANIFEST, signal(), (n) => seen.push(n));
    assert.deepEqual(run.refusals, [], JSON.stringify(run.evidence));
    assert.equal(run.passed, true, JSON.stringify(run.summaries));
    // A created package.json may define tests (the kernel's oracle counts its test keys as
    // changed), so the patch is also graded without it against the base's tests: setup and
    // the check run again there, sealed as round:base-tests:<check>.
    assert.deepEqual(tools(run.receipts), [
      "round:setup:1",
      "round:setup:2",
      "round:marker",
      "round:setup:1",
      "round:setup:2",
      "round:base-tests:marker",
    ]);
    assert.equal(run.oracle?.grading, "patch-and-base-tests");
    assert.deepEqual(seen, ["setup", "marker", "setup", "marker", "setup", "marker"]);
    // Setup receipts record the sandbox; without network consent never `+network`.
    for (const r of run.receipts) assert.equal(r.sandboxProfile, run.sandbox);
    const evidence = run.evidence as { setup: { ok: boolean; commands: unknown[] } };
    assert.equal(evidence.setup.ok, true);
    assert.equal(evidence.setup.commands.length, 2);
    await verifier.settle();
  });
});

Deno.test("clean verifier: without setup a manifest-changing patch is refused (dependency_change_needs_setup)", async () => {
  await withRepo(async (env) => {
    const verifier = createCleanVerifier({
      repo: env.repo,
      base: env.base,
      taskId: "t-nosetup",
      contract: contract(undefined),
      receipts: env.receipts,
      sandbox: SANDBOX,
      worktreeRoot: env.root,
    });
    const run = await verifier.verify(1, ADD_MANIFEST, signal(), () => {});
    assert.deepEqual(run.refusals, ["dependency_change_needs_setup"]);
    assert.equal(run.passed, false);
    await verifier.settle();
  });
});

Deno.test("clean verifier: a failing setup command fails closed with setup_failed and its output tail", async () => {
  await withRepo(async (env) => {
    const verifier = createCleanVerifier({
      repo: env.repo,
      base: env.base,
      taskId: "t-fail",
      contract: contract({
        commands: [
          sh("echo npm ERR! cannot resolve left-pad >&2; exit 3"),
          sh("touch setup-marker"),
        ],
        timeoutMs: 30_000,
        network: "deny",
      }),
      receipts: env.receipts,
      sandbox: SANDBOX,
      worktreeRoot: env.root,
    });
    const checks: string[] = [];
    const run = await verifier.verify(1, ADD_MANIFEST, signal(), (n) => checks.push(n));
    assert.deepEqual(run.refusals, ["setup_failed"]);
    assert.equal(run.passed, false);
    assert.equal(run.ran, false);
    assert.deepEqual(checks, ["setup"], "no check runs after a failed setup");
    assert.deepEqual(run.receipts.map((r) => r.tool), ["round:setup:1"]);
    assert.equal(run.receipts[0]!.exit.code, 3);
    const summary = run.summaries[0]!;
    assert.equal(summary.passed, false);
    assert.equal(summary.outcome, "setup_failed");
    assert.equal(summary.exitCode, 3);
    assert.match(summary.name, /^setup: echo npm ERR!/);
    assert.match(summary.outputTail, /cannot resolve left-pad/);
    assert.match(summary.outputTail, /exit 3/);
    const baseline = await verifier.baseline(signal(), () => {});
    assert.deepEqual(baseline.refusals, ["setup_failed"]);
    assert.equal(baseline.ran, false);
    await verifier.settle();
  });
});

Deno.test("clean verifier: setup asking for the network without policy consent is refused before anything runs", async () => {
  await withRepo(async (env) => {
    const before = (await env.log.anchor()).seq;
    const verifier = createCleanVerifier({
      repo: env.repo,
      base: env.base,
      taskId: "t-net",
      contract: contract({
        commands: [sh("touch setup-marker")],
        timeoutMs: 30_000,
        network: "allow",
      }),
      receipts: env.receipts,
      sandbox: SANDBOX,
      worktreeRoot: env.root,
    });
    const seen: string[] = [];
    const baseline = await verifier.baseline(signal(), (n) => seen.push(n));
    const run = await verifier.verify(1, ADD_MANIFEST, signal(), (n) => seen.push(n));
    for (const r of [baseline, run]) {
      assert.deepEqual(r.refusals, ["setup_network_not_allowed"]);
      assert.equal(r.passed, false);
      assert.equal(r.ran, false);
      assert.deepEqual(r.receipts, []);
    }
    assert.deepEqual(seen, []);
    assert.equal((await env.log.anchor()).seq, before, "no receipt was recorded");
    const made = await Deno.readDir(env.root)[Symbol.asyncIterator]().next().then(
      (e) => !e.done,
      () => false,
    );
    assert.equal(made, false, "no worktree was created");
  });
});

Deno.test("clean verifier: with consent, setup (only) gets the network: receipts say +network under bwrap", async () => {
  await withRepo(async (env) => {
    const verifier = createCleanVerifier({
      repo: env.repo,
      base: env.base,
      taskId: "t-net-ok",
      contract: {
        ...contract({
          // Under bwrap, a shared network shows the host's interfaces; an unshared one only `lo`.
          commands: [sh("grep -c : /proc/net/dev > setup-marker")],
          timeoutMs: 30_000,
          network: "allow",
        }),
        checks: [{
          name: "marker",
          run: { shell: 'echo "setup=$(cat setup-marker) check=$(grep -c : /proc/net/dev)"' },
          expect: [{ kind: "exit-zero" }],
          timeoutMs: 30_000,
          baseline: false,
          differential: null,
          tests: null,
        }],
      },
      receipts: env.receipts,
      sandbox: SANDBOX,
      worktreeRoot: env.root,
      allowSetupNetwork: true,
    });
    const run = await verifier.verify(1, ADD_MANIFEST, signal(), () => {});
    assert.equal(run.passed, true, JSON.stringify(run.summaries));
    const [setup, check] = run.receipts;
    assert.equal(setup?.tool, "round:setup:1");
    assert.equal(check?.tool, "round:marker");
    const seen = /setup=(\d+) check=(\d+)/.exec(run.summaries[0]!.outputTail);
    assert.ok(seen, run.summaries[0]!.outputTail);
    if (run.sandbox === "bwrap") {
      assert.equal(setup?.sandboxProfile, "bwrap+network");
      assert.equal(check?.sandboxProfile, "bwrap", "checks never get the network");
      assert.equal(seen[2], "1", "the check sees only loopback");
      const host = (await Deno.readTextFile("/proc/net/dev")).split("\n")
        .filter((l) => l.includes(":")).length;
      assert.equal(Number(seen[1]), host, "setup sees the host's interfaces");
    } else {
      // No bwrap on this machine: the explicit `none` profile (no network isolation at all).
      assert.equal(setup?.sandboxProfile, "none");
    }
    await verifier.settle();
  });
});

Deno.test("clean verifier: a deadline already passed leaves no time: setup and checks fail closed without running", async () => {
  await withRepo(async (env) => {
    const withSetup = createCleanVerifier({
      repo: env.repo,
      base: env.base,
      taskId: "t-late",
      contract: contract({
        commands: [sh("touch setup-marker")],
        timeoutMs: 30_000,
        network: "deny",
      }),
      receipts: env.receipts,
      sandbox: SANDBOX,
      worktreeRoot: env.root,
      deadline: Date.now() - 1,
    });
    const a = await withSetup.verify(1, ADD_MANIFEST, signal(), () => {});
    assert.deepEqual(a.refusals, ["setup_failed"]);
    assert.deepEqual(a.receipts, [], "nothing ran");
    assert.match(a.summaries[0]!.outputTail, /deadline left no time/);
    const noSetup = createCleanVerifier({
      repo: env.repo,
      base: env.base,
      taskId: "t-late2",
      contract: contract(undefined),
      receipts: env.receipts,
      sandbox: SANDBOX,
      worktreeRoot: env.root,
      deadline: Date.now() - 1,
    });
    const b = await noSetup.verify(1, new Uint8Array(), signal(), () => {});
    assert.equal(b.passed, false);
    assert.deepEqual(b.receipts, [], "the check did not run");
    assert.deepEqual(b.checks, [{ id: "marker", outcome: "fail", receipts: [] }]);
    assert.deepEqual(b.setupReceipts, []);
    await withSetup.settle();
    await noSetup.settle();
  });
});

Deno.test("clean verifier: a shared sandbox probe is used as given (no probe of its own); unavailable fails closed", async () => {
  await withRepo(async (env) => {
    const shared = {
      bwrap: { available: false, path: null, version: null, reason: "the shared probe says no" },
      none: { available: true, path: null, version: null, reason: null },
    };
    const verifier = createCleanVerifier({
      repo: env.repo,
      base: env.base,
      taskId: "t-probe",
      contract: contract(undefined),
      receipts: env.receipts,
      sandbox: "bwrap",
      worktreeRoot: env.root,
      sandboxProbe: Promise.resolve(shared),
    });
    const run = await verifier.baseline(signal(), () => {});
    await verifier.settle();
    assert.equal(run.passed, false);
    assert.match(JSON.stringify(run.evidence), /the shared probe says no/);
  });
});
