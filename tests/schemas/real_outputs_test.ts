/**
 * Every document vouch writes validates against its schema under `schemas/`,
 * checked with ajv (an independent validator from npm) on REAL outputs: the
 * CLI is run as a subprocess (the same flags as `deno task vouch`) on a fixture
 * git repository: `run` with a command backend, `verify`, `scope`, `inspect`,
 * `attest export` + `attest verify`; then every line of the event log (by
 * kind), every receipt and the VerifiedPatch record.
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assertValid, schemaErrors } from "./_ajv.ts";

const MAIN = fileURLToPath(new URL("../../cli/main.ts", import.meta.url));
const FLAGS = [
  "run",
  "--no-prompt",
  "--deny-net",
  "--deny-ffi",
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-run",
  MAIN,
];

interface Fixture {
  root: string;
  repo: string;
  env: Record<string, string>;
}

function git(repo: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd: repo, encoding: "utf8" });
}

function fixture(): Fixture {
  const root = mkdtempSync(join(tmpdir(), "vouch-schemas-"));
  const repo = join(root, "repo");
  execFileSync("git", ["init", "-q", "-b", "main", repo]);
  git(repo, "config", "user.email", "t@example.invalid");
  git(repo, "config", "user.name", "t");
  writeFileSync(join(repo, "value.txt"), "wrong\n");
  writeFileSync(join(repo, "check.sh"), "grep -q right value.txt\n");
  git(repo, "add", "-A");
  git(repo, "commit", "-qm", "base");
  // an agent that fixes the file
  const agent = join(root, "agent.sh");
  writeFileSync(agent, "#!/bin/sh\necho right > value.txt\necho fixed\n");
  chmodSync(agent, 0o755);
  const env = {
    ...Object.fromEntries(Object.entries(Deno.env.toObject())),
    XDG_STATE_HOME: join(root, "state"),
    VOUCH_WORKTREE_ROOT: join(root, "wt"),
    NO_COLOR: "1",
  };
  return { root, repo, env };
}

function vouch(fx: Fixture, ...args: string[]): { code: number; out: string; err: string } {
  const r = spawnSync(Deno.execPath(), [...FLAGS, ...args], {
    cwd: fx.repo,
    env: fx.env,
    encoding: "utf8",
  });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

function json(file: string, r: { code: number; out: string; err: string }, what: string) {
  let doc: unknown;
  try {
    doc = JSON.parse(r.out);
  } catch {
    throw new Error(`${what}: stdout is not JSON (exit ${r.code}):\n${r.out}\n${r.err}`);
  }
  assertValid(file, doc, what);
  assert.equal((doc as { schemaVersion?: unknown }).schemaVersion, 1, `${what} schemaVersion`);
  return doc as Record<string, unknown>;
}

Deno.test("real CLI outputs, log records, receipts and VerifiedPatch records validate (ajv)", async (t) => {
  const fx = fixture();
  try {
    await t.step("run --json", () => {
      const r = vouch(
        fx,
        "run",
        "--goal",
        "make check.sh pass",
        "--verify",
        "sh check.sh",
        "--backend",
        `command:${join(fx.root, "agent.sh")}`,
        "--sandbox",
        "none",
        "--max-rounds",
        "1",
        "--json",
      );
      const doc = json("run-output.schema.json", r, "vouch run --json");
      assert.equal(doc.state, "verified", r.err);
    });
    writeFileSync(join(fx.repo, "value.txt"), "right\n");
    const patch = join(fx.root, "fix.patch");
    writeFileSync(patch, git(fx.repo, "diff", "--binary", "--full-index"));
    git(fx.repo, "checkout", "--", "value.txt");
    await t.step("verify --json (verified and rejected)", () => {
      const ok = vouch(
        fx,
        "verify",
        "--patch",
        patch,
        "--verify",
        "sh check.sh",
        "--sandbox",
        "none",
        "--json",
      );
      assert.equal(json("verify-output.schema.json", ok, "verify --json").verdict, "verified");
      const bad = vouch(
        fx,
        "verify",
        "--patch",
        patch,
        "--verify",
        "false",
        "--sandbox",
        "none",
        "--json",
      );
      assert.equal(json("verify-output.schema.json", bad, "verify --json").verdict, "rejected");
    });
    await t.step("scope --json (accept and reject)", () => {
      const ok = vouch(fx, "scope", "--patch", patch, "--json");
      assert.equal(json("scope-output.schema.json", ok, "scope --json").verdict, "accept");
      const bad = vouch(fx, "scope", "--patch", patch, "--forbid", "value.txt", "--json");
      assert.equal(json("scope-output.schema.json", bad, "scope --json").verdict, "reject");
    });
    await t.step("inspect --json", () => {
      const r = vouch(fx, "inspect", ".vouch/events.jsonl", "--json");
      assert.equal(json("inspect-output.schema.json", r, "inspect --json").audit, "verified");
    });
    await t.step("attest export (3 predicates) + attest verify --json", () => {
      for (const predicate of ["vouch", "vsa", "test-result"]) {
        const out = join(fx.root, `${predicate}.json`);
        const pub = join(fx.root, "vouch.pub");
        const e = vouch(
          fx,
          "attest",
          "export",
          "--predicate",
          predicate,
          "--out",
          out,
          "--pub-out",
          pub,
        );
        assert.equal(e.code, 0, e.err);
        assertValid("dsse-envelope.schema.json", JSON.parse(readFileSync(out, "utf8")));
        const v = vouch(fx, "attest", "verify", out, "--key", pub, "--patch", patch, "--json");
        // the run's patch and the hand-made one are the same diff
        const doc = json(
          "attest-verify-output.schema.json",
          v,
          `attest verify --json (${predicate})`,
        );
        assert.equal(doc.verified, true, v.out);
        const rejected = vouch(fx, "attest", "verify", out, "--key", patch, "--json");
        json("attest-verify-output.schema.json", rejected, "attest verify --json (rejected)");
      }
    });
    await t.step("doctor --json and gc --json", () => {
      const doctor = vouch(fx, "doctor", "--json");
      const d = json("doctor-output.schema.json", doctor, "doctor --json");
      assert.ok(Array.isArray(d.agents));
      const gc = vouch(fx, "gc", "--json");
      json("gc-output.schema.json", gc, "gc --json");
    });
    await t.step("every event log line, receipt and VerifiedPatch record", () => {
      const lines = readFileSync(join(fx.repo, ".vouch/events.jsonl"), "utf8").trimEnd().split(
        "\n",
      );
      const kinds = new Set<string>();
      for (const [i, line] of lines.entries()) {
        const record = JSON.parse(line);
        kinds.add(record.kind);
        assertValid("event-log-record.schema.json", record, `log line ${i + 1} (${record.kind})`);
        if (record.kind === "tool.receipt") assertValid("tool-receipt.schema.json", record.body);
        if (record.kind === "verified_patch.minted") {
          assertValid("verified-patch.schema.json", record.body);
        }
      }
      for (
        const k of [
          "kernel.init",
          "kernel.event",
          "kernel.actions",
          "tool.receipt",
          "verified_patch.minted",
        ]
      ) {
        assert.ok(kinds.has(k), `the fixture log has a ${k} record`);
      }
      // the per-kind body schemas bite: a kernel.event with an unknown event kind fails
      const event = JSON.parse(lines.find((l) => JSON.parse(l).kind === "kernel.event")!);
      event.body.kind = "no_such_event";
      assert.notDeepEqual(schemaErrors("event-log-record.schema.json", event), []);
      const receipt = JSON.parse(lines.find((l) => JSON.parse(l).kind === "tool.receipt")!);
      receipt.body.extra = 1;
      assert.notDeepEqual(schemaErrors("event-log-record.schema.json", receipt), []);
    });
  } finally {
    rmSync(fx.root, { recursive: true, force: true });
  }
});
