/**
 * docs/event-log.md is complete enough to re-implement verification: an
 * independent verifier written from the docs alone (tests/reimpl/vouch_verify.py,
 * Python standard library only: its own RFC 8785, SHA-256, HMAC) agrees with
 * `vouch inspect` on a real log (run with a command backend, verify with a
 * contract file): every record, the head, receipts, VerifiedPatches and the
 * MAC key id and path; the contractDigest recomputed from the contract file
 * alone equals the one sealed in the VerifiedPatch; and on tampered copies both
 * stop at the same line with the same reason, or flag the same receipt.
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { canonicalJson } from "../../adapters/canonical_json/mod.ts";
import { LOG_HASH_DOMAIN } from "../../adapters/log/mod.ts";
import { sha256Hex } from "../../adapters/digest/mod.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SCRIPT = join(ROOT, "tests/reimpl/vouch_verify.py");
const hasPython = spawnSync("python3", ["--version"]).status === 0;
if (!hasPython) console.log("reimpl_test: python3 not on PATH; the re-implementation test skips");

function git(repo: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd: repo, encoding: "utf8" });
}

Deno.test({
  name: "an independent verifier written from the docs agrees with vouch inspect",
  ignore: !hasPython,
  fn: () => {
    const root = mkdtempSync(join(tmpdir(), "vouch-reimpl-"));
    try {
      const repo = join(root, "repo");
      const state = join(root, "state");
      execFileSync("git", ["init", "-q", "-b", "main", repo]);
      git(repo, "config", "user.email", "t@example.invalid");
      git(repo, "config", "user.name", "t");
      writeFileSync(join(repo, "value.txt"), "wrong\n");
      writeFileSync(join(repo, "check.sh"), "grep -q right value.txt\n");
      git(repo, "add", "-A");
      git(repo, "commit", "-qm", "base");
      const agent = join(root, "agent.sh");
      writeFileSync(agent, "#!/bin/sh\necho right > value.txt\necho 'done: 1.5e-7 é'\n");
      chmodSync(agent, 0o755);
      // A contract file with what canonicalisation must handle: key order, a float, non-ASCII.
      const contractFile = join(root, "contract.json");
      writeFileSync(
        contractFile,
        '{ "version": 1, "description": "prüfen 0.000001",\n  "checks": [ { "timeout": 12.5, "run": "sh check.sh", "name": "check" } ] }\n',
      );
      const env = {
        ...Deno.env.toObject(),
        XDG_STATE_HOME: state,
        VOUCH_WORKTREE_ROOT: join(root, "wt"),
      };
      delete (env as Record<string, string>)["VOUCH_KEY_FILE"];
      const vouch = (...args: string[]) =>
        spawnSync(
          Deno.execPath(),
          ["run", "-A", "--no-prompt", join(ROOT, "cli/main.ts"), ...args],
          {
            cwd: repo,
            env,
            encoding: "utf8",
          },
        );
      const run = vouch(
        "run",
        "--goal",
        "fix",
        "--verify",
        "sh check.sh",
        "--backend",
        `command:${agent}`,
        "--sandbox",
        "none",
        "--max-rounds",
        "1",
        "--json",
      );
      assert.equal(run.status, 0, run.stderr);
      writeFileSync(join(repo, "value.txt"), "right\n");
      writeFileSync(join(root, "fix.patch"), git(repo, "diff", "--binary", "--full-index"));
      git(repo, "checkout", "--", "value.txt");
      const verified = vouch(
        "verify",
        "--patch",
        join(root, "fix.patch"),
        "--contract",
        contractFile,
        "--sandbox",
        "none",
        "--json",
      );
      assert.equal(verified.status, 0, verified.stderr + verified.stdout);

      const log = join(repo, ".vouch/events.jsonl");
      const python = (path: string, ...extra: string[]) =>
        JSON.parse(
          execFileSync("python3", [SCRIPT, path, "--state", state, "--repo", repo, ...extra], {
            encoding: "utf8",
          }),
        );
      const inspect = (path: string) => JSON.parse(vouch("inspect", path, "--json").stdout);

      const mine = python(log, "--contract", contractFile);
      const theirs = inspect(log);
      assert.equal(theirs.audit, "verified");
      assert.equal(mine.issue, null);
      assert.equal(mine.count, theirs.log.records);
      assert.deepEqual(mine.head, theirs.log.head);
      assert.ok(mine.records.every((r: { ok: boolean }) => r.ok));
      assert.equal(mine.keyId, theirs.keyId);
      assert.deepEqual(
        [mine.receipts.present, mine.receipts.verified, mine.receipts.issue],
        [theirs.receipts.present, theirs.receipts.verified, null],
      );
      assert.ok(mine.receipts.verified >= 2);
      assert.deepEqual(
        [mine.patches.present, mine.patches.verified],
        [theirs.patches.present, theirs.patches.verified],
      );
      assert.equal(mine.patches.verified, 2);
      // contractDigest from the contract file alone = the one sealed by `vouch verify --contract`
      assert.equal(mine.patches.contractDigests.at(-1), mine.contractDigest);
      // and --verify CMD seals the digest of its documented equivalent file
      const cmdFile = join(root, "cmd.json");
      writeFileSync(
        cmdFile,
        JSON.stringify({ checks: [{ name: "verify", run: "sh check.sh", timeout: 1800 }] }),
      );
      assert.equal(
        mine.patches.contractDigests[0],
        python(log, "--contract", cmdFile).contractDigest,
      );

      // Tampered copies: both stop at the same line, for the same reason.
      const lines = readFileSync(log, "utf8").trimEnd().split("\n");
      const rehash = (record: Record<string, unknown>) => {
        const { hash: _h, ...rest } = record;
        return { ...rest, hash: sha256Hex(LOG_HASH_DOMAIN + canonicalJson(rest)).slice(7) };
      };
      const receiptLine = lines.findIndex((l) => JSON.parse(l).kind === "tool.receipt");
      const mutations: [string, string[]][] = [
        ["byte flip", lines.map((l, i) => i === 3 ? l.replace('"seq":4', '"seq":5') : l)],
        ["deleted line", lines.filter((_l, i) => i !== 2)],
        ["swapped lines", lines.map((l, i) => i === 1 ? lines[2]! : i === 2 ? lines[1]! : l)],
        ["not canonical", lines.map((l, i) => i === 4 ? l.replace('{"body":', '{ "body":') : l)],
        // The first hex digit of the record hash changed (whatever it was: never a no-op).
        [
          "bad hash",
          lines.map((l, i) =>
            i === 5
              ? l.replace(/"hash":"(.)/, (_m, c: string) => `"hash":"${c === "f" ? "0" : "f"}`)
              : l
          ),
        ],
        // A self-consistent rewrite of a receipt (record hash recomputed, chain relinked after it
        // would be needed too): the receipt MAC catches it.
        [
          "receipt rewritten",
          lines.map((l, i) => {
            if (i !== receiptLine) return l;
            const r = JSON.parse(l);
            r.body.exit.code = 7;
            return canonicalJson(rehash(r));
          }),
        ],
      ];
      for (const [name, mutated] of mutations) {
        const path = join(repo, ".vouch", `tampered-${name.replace(/ /g, "-")}.jsonl`);
        writeFileSync(path, mutated.join("\n") + "\n");
        const a = python(path);
        const b = inspect(path);
        if (b.log.issue !== null) {
          assert.deepEqual(a.issue, { line: b.log.issue.line, reason: b.log.issue.reason }, name);
        } else {
          assert.equal(a.issue, null, name);
          assert.equal(a.receipts.issue?.code, b.receipts.issue?.code, name);
          assert.equal(a.receipts.issue?.seq, b.receipts.issue?.seq, name);
          assert.notEqual(a.receipts.issue, null, name);
        }
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
});
