/**
 * Every command runs under exactly the Deno flags of the one permission table
 * (`cli/permissions.ts`, shown by `--help` and README): the read-only commands
 * with no write, no run, no net, reads limited to the files they judge
 * (`scope` reads the patch; `inspect` the log and the key, and env to find
 * the key; `attest verify` the envelope and the public key); `evaluate` with
 * reads of its three inputs and run of the deno executable only; `verify` and
 * `run` with `--allow-run` listing exactly git, bwrap, find and /bin/sh. The
 * log and the attestation are made by `verify` (under its narrow flags) and
 * `attest export`, on a real repository.
 */
import assert from "node:assert/strict";
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BROAD_FLAGS, permissionsOf } from "../../cli/permissions.ts";
import { oneCommitRepo } from "./_one_commit_repo.ts";
import { BUNDLE_FIXTURES, evaluateArgs, materializeFixture } from "../redteam/bundles/fixtures.ts";

const MAIN = fileURLToPath(new URL("../../cli/main.ts", import.meta.url));
/** The table's flags for `command`, each `<placeholder>` replaced by `fill`'s value for its flag. */
function tableFlags(command: string, fill: Record<string, string> = {}): string[] {
  return permissionsOf(command).flags.map((f) => {
    const m = /^(--allow-[a-z]+)=<[^>]+>$/.exec(f);
    if (m === null) return f;
    const value = fill[m[1]!];
    if (value === undefined) throw new Error(`no value for ${f}`);
    return `${m[1]}=${value}`;
  });
}

const TASK_FLAGS = [...BROAD_FLAGS];

/** `deno run --no-prompt FLAGS cli/main.ts ARGS` in `cwd`, with NO_COLOR and `env` added. */
function vouchUnder(
  flags: readonly string[],
  args: readonly string[],
  cwd: string,
  env: Record<string, string> = {},
): SpawnSyncReturns<string> {
  return spawnSync(Deno.execPath(), ["run", "--no-prompt", ...flags, MAIN, ...args], {
    cwd,
    env: { ...Deno.env.toObject(), NO_COLOR: "1", ...env },
    encoding: "utf8",
  });
}

Deno.test("verify, scope, inspect and attest verify run under exactly the table's flags", () => {
  const root = mkdtempSync(join(tmpdir(), "vouch-narrow-"));
  try {
    const { repo, patch } = oneCommitRepo(root);
    const vouch = (flags: string[], args: string[]) => {
      const r = vouchUnder(flags, args, repo, { XDG_STATE_HOME: join(root, "state") });
      assert.equal(r.status, 0, `${args.join(" ")}: ${r.stderr}${r.stdout}`);
      return r.stdout;
    };
    const sandbox = spawnSync("sh", ["-c", "command -v bwrap"]).status === 0 ? "auto" : "none";
    vouch(sandbox === "auto" ? tableFlags("verify") : TASK_FLAGS, [
      "verify",
      "--patch",
      patch,
      "--verify",
      "grep -q 2 a.txt",
      "--sandbox",
      sandbox,
    ]);
    const att = join(root, "att.json");
    vouch(TASK_FLAGS, ["attest", "export", "--out", att]);
    const pub = join(root, "pub.pem");
    writeFileSync(pub, vouch(TASK_FLAGS, ["attest", "pubkey"]));

    const read = { "--allow-read": root };
    const scope = JSON.parse(
      vouch(tableFlags("scope", read), ["scope", "--patch", patch, "--json"]),
    );
    assert.equal(scope.verdict, "accept");
    const inspect = JSON.parse(
      vouch(tableFlags("inspect", read), ["inspect", ".vouch/events.jsonl", "--json"]),
    );
    assert.equal(inspect.audit, "verified");
    const verified = JSON.parse(
      vouch(tableFlags("attest verify", read), ["attest", "verify", att, "--key", pub, "--json"]),
    );
    assert.equal(verified.verified, true);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

const HAS_BWRAP = spawnSync("sh", ["-c", "command -v bwrap"]).status === 0;
if (!HAS_BWRAP) console.log("SKIP run under its narrow flags: bwrap not installed");

Deno.test({
  name:
    "run (command agent, bwrap) runs under exactly the table's flags: --allow-run lists 4 programs",
  ignore: !HAS_BWRAP,
  fn: () => {
    const root = mkdtempSync(join(tmpdir(), "vouch-narrow-run-"));
    // The agent's dir, readable by others as an install dir is (as root the agent is uid 65534).
    chmodSync(root, 0o755);
    try {
      const { repo } = oneCommitRepo(root);
      const agent = join(root, "agent.sh");
      writeFileSync(
        agent,
        '#!/bin/sh\necho 2 > a.txt\necho \'{"summary":"set a","done":true}\'\n',
        {
          mode: 0o755,
        },
      );
      const flags = tableFlags("run");
      assert.equal(flags.at(-1), "--allow-run=git,bwrap,find,/bin/sh");
      const r = vouchUnder(
        flags,
        [
          "run",
          "--backend",
          `command:${agent}`,
          "--goal",
          "set a to 2",
          "--verify",
          "grep -q 2 a.txt",
        ],
        repo,
        { XDG_STATE_HOME: join(root, "state") },
      );
      assert.equal(r.status, 0, `${r.stderr}${r.stdout}`);
      assert.match(r.stdout, /^VERIFIED \(verified\)/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
});

Deno.test("verify without /bin/sh in --allow-run: permission_denied naming --allow-run=/bin/sh", () => {
  const root = mkdtempSync(join(tmpdir(), "vouch-narrow-sh-"));
  try {
    const { repo, patch } = oneCommitRepo(root);
    const flags = [...tableFlags("verify").slice(0, -1), "--allow-run=git,bwrap,find"];
    const r = vouchUnder(flags, ["verify", "--patch", patch, "--verify", "true"], repo, {
      XDG_STATE_HOME: join(root, "state"),
    });
    assert.equal(r.status, 5, r.stderr);
    assert.match(
      r.stderr,
      /Deno denied run access to "\/bin\/sh".*--allow-run=\/bin\/sh \(permission_denied\)/,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

Deno.test("evaluate runs under exactly the table's flags (read its inputs, run deno); without run: exit 5", async () => {
  const f = BUNDLE_FIXTURES.find((x) => x.name === "good")!;
  const base = mkdtempSync(join(tmpdir(), "vouch-narrow-eval-"));
  try {
    const p = await materializeFixture(f, base);
    const args = [...evaluateArgs(p), "--json"];
    const flags = tableFlags("evaluate", { "--allow-read": base, "--allow-run": Deno.execPath() });
    const run = (fl: string[]) => vouchUnder(fl, args, base);
    const ok = run(flags);
    assert.equal(ok.status, 0, ok.stderr + ok.stdout);
    assert.equal(JSON.parse(ok.stdout).decision_support.recommendation, "accept_candidate");
    const denied = run(flags.filter((x) => !x.startsWith("--allow-run")));
    assert.equal(denied.status, 5, denied.stderr + denied.stdout);
    assert.match(denied.stderr, /grant it with --allow-run=\S+ \(permission_denied\)/);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

Deno.test("--help shows each command's row of the table, and README shows the same flags", async () => {
  const { runCli } = await import("../../cli/main.ts");
  const { COMMAND_PERMISSIONS } = await import("../../cli/permissions.ts");
  const readme = Deno.readTextFileSync(new URL("../../README.md", import.meta.url));
  for (const row of COMMAND_PERMISSIONS) {
    assert.ok(readme.includes(`\`${row.flags.join(" ")}\``), `README lacks ${row.flags.join(" ")}`);
    for (const command of row.commands) {
      let out = "";
      const io = { out: (t: string) => void (out += t), err: () => {}, isTerminal: false };
      assert.equal(await runCli([command.split(" ")[0]!, "--help"], io), 0);
      assert.ok(out.includes(`  ${row.flags.join(" ")}\n`), `${command} --help:\n${out}`);
    }
  }
});
