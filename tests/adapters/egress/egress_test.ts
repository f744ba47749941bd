// The egress allowlist, proxy helper and in-namespace forwarder with real
// processes and real bwrap: the allowlist parser and matcher as properties;
// the helper's own matcher agrees with `egressAllowed`; the forwarder passes
// exit codes and signals through and the agent's namespace reaches only what
// the allowlist names; a proxy that cannot start fails closed.
import assert from "node:assert/strict";
import fc from "fast-check";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  agentEgressAllowlist,
  egressAllowed,
  type EgressHost,
  parseEgressHost,
  startAgentEgress,
  startEgressProxy,
} from "../../../adapters/egress/mod.ts";
import { runProcess } from "../../../adapters/process/run.ts";
import { agentProfile } from "../../../adapters/sandbox/agent_profile.ts";
import { findOnPath } from "../../../adapters/sandbox/bwrap.ts";
import { NO_SANDBOX } from "../../../adapters/sandbox/profile.ts";

const BWRAP = findOnPath("bwrap");
const CURL = findOnPath("curl");

const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/);
const hostName = fc.array(label, { minLength: 1, maxLength: 4 }).map((l) => l.join("."));

Deno.test("egress: a parsed entry prints back to itself; junk never parses", () => {
  fc.assert(fc.property(hostName, fc.integer({ min: 1, max: 65535 }), (h, port) => {
    assert.deepEqual(parseEgressHost(`${h}:${port}`), { host: h, port });
    assert.deepEqual(parseEgressHost(h.toUpperCase()), { host: h, port: 443 });
  }));
  for (
    const bad of ["", "a b", "x.com/p", "x.com:0", "x.com:70000", "[zz]:1", "http://x.com", "a..b"]
  ) {
    assert.throws(() => parseEgressHost(bad), /egress/, bad);
  }
});

Deno.test("egress: a host matches only itself, its wildcard's subdomains, and loopback aliases", () => {
  fc.assert(fc.property(hostName, hostName, fc.integer({ min: 1, max: 65535 }), (a, b, port) => {
    const allow: EgressHost[] = [{ host: a, port }];
    assert.equal(egressAllowed(allow, a, port), true);
    assert.equal(egressAllowed(allow, a, port === 1 ? 2 : port - 1), false);
    assert.equal(egressAllowed(allow, b, port), a === b);
    // a suffix trick never matches
    assert.equal(egressAllowed(allow, `${a}.${b}`, port), false);
    assert.equal(egressAllowed([{ host: `*.${a}`, port }], `${b}.${a}`, port), true);
    assert.equal(egressAllowed([{ host: `*.${a}`, port }], a, port), false);
    assert.equal(egressAllowed([{ host: `*.${a}`, port }], `${b}${a}`, port), false);
  }));
  assert.equal(egressAllowed([{ host: "localhost", port: 8 }], "127.0.0.1", 8), true);
  assert.equal(egressAllowed([{ host: "127.0.0.1", port: 8 }], "[::1]", 8), true);
});

Deno.test("egress: the provider's defaults only when none of its base URLs is configured", () => {
  assert.deepEqual(
    agentEgressAllowlist({ provider: "codex", env: {} }).map((h) => h.host),
    ["api.openai.com", "chatgpt.com"],
  );
  assert.deepEqual(
    agentEgressAllowlist({ provider: "codex", env: {}, configUrls: ["http://127.0.0.1:9/v1"] }),
    [{ host: "127.0.0.1", port: 9 }],
  );
  // A forwarded base URL of another provider adds its host but keeps this provider's defaults.
  assert.deepEqual(
    agentEgressAllowlist({
      provider: "claude",
      env: { OPENAI_BASE_URL: "https://gw.example:8443" },
      extra: [{ host: "pypi.org", port: 443 }],
    }),
    [{ host: "gw.example", port: 8443 }, { host: "api.anthropic.com", port: 443 }, {
      host: "pypi.org",
      port: 443,
    }],
  );
});

/** The helper's answer to `CONNECT host:port`: its status line. */
function connectStatus(socket: string, host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const c = createConnection(socket);
    let got = "";
    c.on("data", (d) => {
      got += d;
      if (got.includes("\r\n")) {
        c.destroy();
        resolve(got.split("\r\n")[0]!);
      }
    });
    c.on("error", () => resolve(got.split("\r\n")[0] ?? "error"));
    c.on("close", () => resolve(got.split("\r\n")[0] ?? ""));
    c.write(`CONNECT ${host}:${port} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
  });
}

const NODE = findOnPath("node");
// The helper's Deno branch (Deno's own sockets) and its node branch (node's builtins).
for (
  const [runtime, evalPrefix] of [
    ["deno", [Deno.execPath(), "eval", "--quiet", "--no-config", "--no-lock", "--ext=js"]],
    ["node", [NODE ?? "node", "--input-type=module", "-e"]],
  ] as const
) {
  Deno.test({
    name:
      `egress proxy helper (${runtime}): its matcher agrees with egressAllowed; refusals are reported`,
    ignore: runtime === "node" && NODE === null,
    fn: async () => {
      const dir = mkdtempSync(join(tmpdir(), "vouch-egress-t-"));
      const allow: EgressHost[] = [
        { host: "127.0.0.1", port: 1 },
        { host: "*.model.example", port: 443 },
        { host: "api.example.com", port: 443 },
      ];
      const proxy = await startEgressProxy({
        dir,
        allow,
        sandbox: NO_SANDBOX,
        evalPrefix,
      });
      try {
        const cases: [string, number][] = [
          ["localhost", 1],
          ["127.0.0.1", 2],
          ["evil.example", 443],
          ["api.example.com", 444],
          ["api.example.com.evil.net", 443],
          ["model.example", 443],
          ["xmodel.example", 443],
          ["10.0.0.1", 443],
        ];
        for (const [host, port] of cases) {
          const status = await connectStatus(proxy.proxySocket, host, port);
          // allowed: tried (502: nothing listens on port 1); refused: 403 without a try
          assert.equal(
            status.includes(" 403 "),
            !egressAllowed(allow, host, port),
            `${host}:${port} ${status}`,
          );
        }
        const refused = await proxy.takeRefusals();
        assert.equal(refused.length, cases.filter(([h, p]) => !egressAllowed(allow, h, p)).length);
        assert.deepEqual(refused[0], { host: "127.0.0.1", port: 2, method: "CONNECT" });
        assert.deepEqual(await proxy.takeRefusals(), []);
      } finally {
        await proxy.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  });
}

Deno.test("egress proxy: a helper that cannot listen fails closed (egress_unavailable)", async () => {
  await assert.rejects(
    startEgressProxy({
      dir: "/nonexistent/egress",
      allow: [],
      sandbox: NO_SANDBOX,
      evalPrefix: [Deno.execPath(), "eval", "--quiet", "--no-config", "--no-lock", "--ext=js"],
    }),
    (e: Error & { code?: string }) => e.code === "egress_unavailable",
  );
});

Deno.test({
  name:
    "egress forwarder (bwrap): exit codes and signals pass through; only the allowlist is reached",
  ignore: BWRAP === null || CURL === null,
  fn: async () => {
    const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-egress-f-" }));
    Deno.mkdirSync(join(root, "wt"));
    Deno.mkdirSync(join(root, "scratch"));
    let baitSeen = 0;
    const bait = createServer((s) => (baitSeen++, s.destroy()));
    const model = createServer((s) => s.end("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nmodel"));
    await new Promise<void>((ok) => bait.listen(0, "127.0.0.1", ok));
    await new Promise<void>((ok) => model.listen(0, "127.0.0.1", ok));
    const baitPort = (bait.address() as AddressInfo).port;
    const modelPort = (model.address() as AddressInfo).port;
    const sandbox = agentProfile({
      worktree: join(root, "wt"),
      scratch: join(root, "scratch"),
      bwrapPath: BWRAP!,
      home: "/nonexistent-home",
    });
    const egress = await startAgentEgress({
      dir: join(root, "scratch"),
      sandbox,
      allow: [{ host: "127.0.0.1", port: modelPort }],
    });
    try {
      const run = (shell: string) =>
        runProcess({
          shell,
          cwd: join(root, "wt"),
          sandbox: egress.confine(sandbox),
          timeoutMs: 60_000,
        });
      assert.equal((await run("exit 7")).exitCode, 7);
      assert.equal((await run("kill -TERM $$")).exitCode, 143);
      const r = await run(
        `curl -s -m 10 http://127.0.0.1:${modelPort}/; echo; ` +
          `curl -s -m 10 --noproxy '*' http://localhost:${modelPort}/; echo; ` +
          `curl -s -m 10 http://127.0.0.1:${baitPort}/; echo " rc=$?"; ` +
          `curl -s -m 10 --noproxy '*' http://127.0.0.1:${baitPort}/; echo " rc=$?"`,
      );
      const out = r.stdout.head;
      assert.match(out, /^model\nmodel\n/, out);
      assert.match(out, /not allowed \(not a model host of this run\)\n rc=0\n rc=7/, out);
      assert.equal(baitSeen, 0);
      assert.deepEqual(await egress.proxy.takeRefusals(), [
        { host: "127.0.0.1", port: baitPort, method: "GET" },
      ]);
      // Commands vouch runs for the agent (terminals) drop the forwarder: no network at all.
      const { toolCommandProfile } = await import("../../../adapters/sandbox/agent_profile.ts");
      const t = await runProcess({
        shell: `curl -s -m 5 http://127.0.0.1:${modelPort}/; echo " rc=$?"`,
        cwd: join(root, "wt"),
        sandbox: toolCommandProfile(egress.confine(sandbox)),
        timeoutMs: 60_000,
      });
      assert.match(t.stdout.head, /rc=7/, t.stdout.head);
    } finally {
      await egress.close();
      bait.close();
      model.close();
      await Deno.remove(root, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name: "egress forwarder (bwrap): a proxy that fails keeps the gate shut (the agent never starts)",
  ignore: BWRAP === null,
  fn: async () => {
    const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-egress-g-" }));
    Deno.mkdirSync(join(root, "wt"));
    // A directory where the proxy's socket goes: the helper cannot listen.
    Deno.mkdirSync(join(root, "scratch", "egress", "proxy.sock"), { recursive: true });
    const sandbox = agentProfile({
      worktree: join(root, "wt"),
      scratch: join(root, "scratch"),
      bwrapPath: BWRAP!,
      home: "/nonexistent-home",
    });
    const egress = await startAgentEgress({ dir: join(root, "scratch"), sandbox, allow: [] });
    try {
      const r = await runProcess({
        shell: `touch ${join(root, "wt", "started")}`,
        cwd: join(root, "wt"),
        sandbox: egress.confine(sandbox),
        timeoutMs: 60_000,
      });
      assert.equal(r.exitCode, 125, r.stderr.head);
      assert.match(r.stderr.head, /egress proxy did not start; the agent is not started/);
      assert.equal(existsSync(join(root, "wt", "started")), false);
      const failed = await egress.ready;
      assert.equal(failed?.code, "egress_unavailable");
    } finally {
      await egress.close();
      await Deno.remove(root, { recursive: true }).catch(() => {});
    }
  },
});
