/**
 * Red team for attestations: a non-fix "verified" with `--verify true` gets a
 * signed attestation that says PASSED; `attest verify --patch` alone accepts
 * it. The statement must say what was checked, so a verifier can pin it:
 * `--contract FILE` (the contract it expects), `--base COMMIT`, `--policy`
 * and `--sandbox bwrap` each refuse the weak attestation, and the fields are
 * read independently of vouch: OpenSSL checks the Ed25519 signature over the
 * DSSE PAE, and the payload is plain JSON.
 *
 * Real git, real `vouch verify` / `vouch attest` CLI processes (`deno task vouch` flags).
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { pae } from "../../../adapters/attest/pae.ts";
import { VOUCH_TASK_FLAGS } from "../../golden/cli_harness.ts";
import { git, writeFiles } from "../../golden/fixture_repos.ts";

const MAIN = new URL("../../../cli/main.ts", import.meta.url).pathname;
const CONFIG = new URL("../../../deno.json", import.meta.url).pathname;

function hasOpenssl(): boolean {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
const openssl = hasOpenssl();
if (!openssl) console.log("attest pins red team: openssl not on PATH; the OpenSSL half skips");

async function vouch(cwd: string, env: Record<string, string>, ...args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...VOUCH_TASK_FLAGS, "--config", CONFIG, MAIN, ...args],
    cwd,
    env,
    stdin: "null",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, out: text(out.stdout), err: text(out.stderr) };
}

/** A repository whose answer.txt says 41, the contract that wants 42, and a patch to `answer`. */
async function fixture(dir: string, answer: string) {
  const repo = join(dir, "repo");
  await Deno.mkdir(repo);
  await git(repo, "init", "-q");
  await git(repo, "config", "user.email", "e@example.invalid");
  await git(repo, "config", "user.name", "e");
  await writeFiles(repo, { "answer.txt": "41\n" });
  await git(repo, "add", "-A");
  await git(repo, "commit", "-qm", "init");
  const base = (await git(repo, "rev-parse", "HEAD")).trim();
  const contract = join(dir, "contract.json");
  await Deno.writeTextFile(
    contract,
    JSON.stringify({ checks: [{ name: "answer", run: ["grep", "-qx", "42", "answer.txt"] }] }),
  );
  const patch = join(dir, `answer-${answer}.diff`);
  await Deno.writeTextFile(
    patch,
    `diff --git a/answer.txt b/answer.txt\n--- a/answer.txt\n+++ b/answer.txt\n@@ -1 +1 @@\n-41\n+${answer}\n`,
  );
  const env = { ...Deno.env.toObject(), XDG_STATE_HOME: join(dir, "state"), NO_COLOR: "1" };
  const att = join(dir, `answer-${answer}.intoto.json`);
  const pub = join(dir, "vouch.pub");
  /** `vouch verify --patch` of the patch with `how` (its check), writing the attestation. */
  const verify = async (...how: string[]) => {
    const v = await vouch(
      repo,
      env,
      "verify",
      "--patch",
      patch,
      ...how,
      "--sandbox",
      "none",
      "--attest-out",
      att,
    );
    assert.equal(v.code, 0, v.err + v.out);
    const key = await vouch(repo, env, "attest", "pubkey");
    assert.equal(key.code, 0, key.err);
    await Deno.writeTextFile(pub, key.out);
  };
  /** `vouch attest verify` of the attestation with `pins`. */
  const attestVerify = (...pins: string[]) =>
    vouch(dir, env, "attest", "verify", att, "--key", pub, ...pins);
  return { base, contract, patch, att, pub, verify, attestVerify };
}

/** SHA-256 of the RFC 8785 form of a JSON file, computed with python3's json (not vouch's). */
function independentDigest(file: string): string {
  return execFileSync("python3", [
    "-c",
    "import json,sys,hashlib;v=json.load(open(sys.argv[1]));" +
    "print(hashlib.sha256(json.dumps(v,sort_keys=True,separators=(',',':'),ensure_ascii=False).encode()).hexdigest())",
    file,
  ], { encoding: "utf8" }).trim();
}

/** The in-toto statement inside a DSSE envelope file. */
async function statementOf(att: string) {
  return JSON.parse(
    Buffer.from(JSON.parse(await Deno.readTextFile(att)).payload, "base64").toString("utf8"),
  );
}

Deno.test("red team: an attestation of a non-fix verified with `--verify true` fails every pin", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vouch-redteam-attest-" });
  try {
    // The contract the reviewer expects wants 42; a non-fix (43), "verified" by a check of nothing.
    const { base, contract, patch, att, pub, verify, attestVerify } = await fixture(dir, "43");
    await verify("--verify", "true");

    // What the old check accepted: the patch digest alone.
    const patchOnly = await attestVerify("--patch", patch);
    assert.equal(patchOnly.code, 0, patchOnly.out);
    // Each pin refuses it.
    const refused = async (pin: string[], why: RegExp) => {
      const r = await attestVerify("--patch", patch, ...pin);
      assert.equal(r.code, 1, `${pin.join(" ")}: ${r.out}${r.err}`);
      assert.match(r.out, /^REJECTED pin_mismatch: /);
      assert.match(r.out, why);
    };
    await refused(["--contract", contract], /its contract is sha256:[0-9a-f]{64}, not sha256:/);
    await refused(["--base", "0".repeat(40)], /its base is [0-9a-f]{40}, not 0{40}/);
    await refused(["--sandbox", "bwrap"], /sandbox "none", weaker than the bwrap asked for/);
    await refused(["--policy", `sha256:${"e".repeat(64)}`], /policy digest/);
    // The pins the attestation does satisfy pass: its real base and its (empty) sandbox.
    const right = await attestVerify("--patch", patch, "--base", base, "--sandbox", "none");
    assert.equal(right.code, 0, right.out + right.err);
    assert.match(right.out, new RegExp(`base      ${base}`));

    // Independently of vouch: OpenSSL verifies the signature, the payload names what was checked.
    const envelope = JSON.parse(await Deno.readTextFile(att));
    const payload = Buffer.from(envelope.payload, "base64");
    const statement = await statementOf(att);
    assert.equal(statement.predicate.baseRevision, base);
    assert.equal(statement.predicate.sandboxProfile, "none");
    assert.match(statement.predicate.policy.digest.sha256, /^[0-9a-f]{64}$/);
    assert.ok(
      statement.subject.some((s: { digest: Record<string, string> }) =>
        s.digest.gitCommit === base
      ),
    );
    if (openssl) {
      await Deno.writeFile(join(dir, "pae.bin"), pae(envelope.payloadType, payload));
      await Deno.writeFile(join(dir, "sig.bin"), Buffer.from(envelope.signatures[0].sig, "base64"));
      const ok = execFileSync("openssl", [
        "pkeyutl",
        "-verify",
        "-pubin",
        "-inkey",
        pub,
        "-rawin",
        "-in",
        join(dir, "pae.bin"),
        "-sigfile",
        join(dir, "sig.bin"),
      ], { encoding: "utf8" });
      assert.match(ok, /Signature Verified Successfully/);
      // The contract digest in the statement is not the expected contract's: sha256 of its
      // RFC 8785 form (computed here with python3's json, sorted keys, no spaces).
      const expected = independentDigest(contract);
      assert.notEqual(statement.predicate.policy.digest.sha256, expected);
      // and a contract pin by that independently computed digest refuses it too
      await refused(["--contract", `sha256:${expected}`], /its contract is/);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("red team: a fix verified against the pinned contract passes every pin", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vouch-redteam-attest-ok-" });
  try {
    const { base, contract, patch, att, verify, attestVerify } = await fixture(dir, "42");
    await verify("--contract", contract);
    const r = await attestVerify(
      "--patch",
      patch,
      "--contract",
      contract,
      "--base",
      base,
      "--sandbox",
      "none",
    );
    assert.equal(r.code, 0, r.out + r.err);
    // The digest it pinned is the contract file's RFC 8785 SHA-256, computed here without vouch.
    const statement = await statementOf(att);
    assert.equal(statement.predicate.policy.digest.sha256, independentDigest(contract));
    // a stronger sandbox than it ran in is still refused
    const strong = await attestVerify("--sandbox", "bwrap");
    assert.equal(strong.code, 1, strong.out);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
