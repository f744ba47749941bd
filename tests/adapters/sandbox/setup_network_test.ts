import assert from "node:assert/strict";
import {
  bwrapArgv,
  type BwrapSandbox,
  NO_SANDBOX,
  sandboxLabel,
  withSetupNetwork,
} from "../../../adapters/sandbox/mod.ts";
import { runProcess } from "../../../adapters/process/run.ts";
import { probeSandbox, selectSandbox } from "../../../adapters/host/sandbox_probe.ts";

const PROFILE: BwrapSandbox = {
  kind: "bwrap",
  bwrapPath: "/usr/bin/bwrap",
  writable: ["/wt"],
  readOnly: ["/wt/.git"],
  hiddenDirs: ["/run"],
  hiddenFiles: [],
};

Deno.test("bwrap: the network is unshared by default; only an explicit setup profile shares it", () => {
  const denied = bwrapArgv(PROFILE, ["npm", "ci"], "/wt", {});
  assert.ok(denied.includes("--unshare-net"));
  const shared = withSetupNetwork(PROFILE);
  const allowed = bwrapArgv(shared, ["npm", "ci"], "/wt", {});
  assert.equal(allowed.includes("--unshare-net"), false);
  // Everything else is identical: same confinement, only the network flag differs.
  assert.deepEqual(allowed, denied.filter((a) => a !== "--unshare-net"));
  assert.equal(sandboxLabel(PROFILE), "bwrap");
  assert.equal(sandboxLabel(shared), "bwrap+network");
  assert.equal(sandboxLabel({ ...PROFILE, shareNetwork: false }), "bwrap");
  assert.equal(withSetupNetwork(NO_SANDBOX), NO_SANDBOX);
  assert.equal(sandboxLabel(NO_SANDBOX), "none");
});

Deno.test("bwrap (real): a setup profile sees the host's interfaces, the default only loopback", async (t) => {
  const probe = await probeSandbox();
  if (!probe.bwrap.available) {
    // Stated, not silent: this machine cannot run bwrap; the argv test above still holds.
    console.warn(`bwrap unavailable (${probe.bwrap.reason}); real network-namespace test not run`);
    return;
  }
  const dir = await Deno.makeTempDir({ prefix: "vouch-setup-net-" });
  try {
    const profile = await selectSandbox("bwrap", { worktree: dir, probe });
    const count = async (p: typeof profile) => {
      const r = await runProcess({
        shell: "grep -c : /proc/net/dev",
        cwd: dir,
        sandbox: p,
        timeoutMs: 10_000,
      });
      assert.equal(r.exitCode, 0, r.stderr.head);
      return Number(r.stdout.head.trim());
    };
    await t.step("default: loopback only", async () => assert.equal(await count(profile), 1));
    await t.step("setup with network: the host's interfaces", async () => {
      const host = (await Deno.readTextFile("/proc/net/dev")).split("\n")
        .filter((l) => l.includes(":")).length;
      assert.equal(await count(withSetupNetwork(profile)), host);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
