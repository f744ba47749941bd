import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { runCli } from "../../cli/main.ts";

const MAIN = fileURLToPath(new URL("../../cli/main.ts", import.meta.url));
const enc = new TextEncoder();
const dec = new TextDecoder();

const GOOD = "diff --git a/src/a.ts b/src/a.ts\nnew file mode 100644\n" +
  "index 0000000..1111111\n--- /dev/null\n+++ b/src/a.ts\n@@ -0,0 +1,2 @@\n+x\n+y\n";
const BAD = GOOD +
  "diff --git a/src/x b/../x\nsimilarity index 100%\nrename from src/x\nrename to ../x\n";

async function withPatch<T>(text: string, fn: (file: string) => Promise<T>): Promise<T> {
  const file = await Deno.makeTempFile({ suffix: ".diff" });
  try {
    await Deno.writeTextFile(file, text);
    return await fn(file);
  } finally {
    await Deno.remove(file);
  }
}

async function inProcess(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runCli(["scope", ...args], {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    isTerminal: false,
  });
  return { code, out, err };
}

async function subprocess(args: string[], stdin?: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "--deny-net", "--allow-read", MAIN, "scope", ...args],
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(enc.encode(stdin));
    await writer.close();
  }
  const result = await child.output();
  return { code: result.code, out: dec.decode(result.stdout), err: dec.decode(result.stderr) };
}

Deno.test("vouch scope accepts an in-scope patch (exit 0, human output)", async () => {
  await withPatch(GOOD, async (file) => {
    const r = await inProcess(["--patch", file, "--allow", "src/**", "--forbid", ".github/"]);
    assert.equal(r.code, 0);
    assert.match(r.out, /^accept: 1 file\(s\), no violations\n/);
    assert.match(r.out, /added {5}"src\/a.ts" \+2 -0/);
  });
});

Deno.test("vouch scope --json prints verdict, reasons, files, violations, sensitive, policyDenied", async () => {
  await withPatch(BAD, async (file) => {
    const r = await inProcess(["--patch", file, "--allow", "src/", "--json"]);
    assert.equal(r.code, 1);
    const json = JSON.parse(r.out);
    assert.deepEqual(Object.keys(json), [
      "schemaVersion",
      "verdict",
      "reasons",
      "files",
      "violations",
      "sensitive",
      "policyDenied",
    ]);
    assert.equal(json.verdict, "reject");
    assert.deepEqual(json.reasons, ["dotdot_component"]);
    assert.equal(json.policyDenied, null);
    assert.deepEqual(json.files[0], {
      oldPath: null,
      newPath: "src/a.ts",
      status: "added",
      additions: 2,
      deletions: 0,
      binary: false,
      oldMode: null,
      newMode: "100644",
    });
    assert.deepEqual(Object.keys(json.files[1]), [
      "oldPath",
      "newPath",
      "status",
      "additions",
      "deletions",
      "binary",
      "oldMode",
      "newMode",
    ]);
    assert.deepEqual(json.violations, [
      { code: "dotdot_component", path: "../x", detail: "'..' component at offset 0" },
    ]);
  });
});

Deno.test("vouch scope: an unparsable patch is a rejection naming the parser code", async () => {
  await withPatch("@@ -1 +1 @@\n-a\n+b\n", async (file) => {
    const r = await inProcess(["--patch", file, "--json"]);
    assert.equal(r.code, 1);
    const json = JSON.parse(r.out);
    assert.equal(json.violations[0].code, "unparsable_patch");
    assert.match(json.violations[0].detail, /^unexpected_hunk at line 1: /);
  });
});

Deno.test("vouch scope judges with verify's defaults: .github forbidden, symlinks denied, empty rejected", async () => {
  const workflow = "diff --git a/.github/workflows/x.yml b/.github/workflows/x.yml\n" +
    "new file mode 100644\nindex 0000000..1111111\n--- /dev/null\n" +
    "+++ b/.github/workflows/x.yml\n@@ -0,0 +1 @@\n+on: push\n";
  await withPatch(workflow, async (file) => {
    const r = await inProcess(["--patch", file, "--json"]);
    assert.equal(r.code, 1);
    assert.deepEqual(JSON.parse(r.out).reasons, ["forbidden"]);
    // Naming it in --allow lifts the default, as for verify.
    const allowed = await inProcess(["--patch", file, "--allow", ".github/**", "--json"]);
    assert.equal(allowed.code, 0, allowed.out);
  });
  const link = "diff --git a/etc b/etc\nnew file mode 120000\nindex 0000000..1111111\n" +
    "--- /dev/null\n+++ b/etc\n@@ -0,0 +1 @@\n+../../etc\n\\ No newline at end of file\n";
  await withPatch(link, async (file) => {
    const r = await inProcess(["--patch", file]);
    assert.equal(r.code, 1);
    assert.match(r.out, /^reject: 0 violation\(s\), policy denies symlink in a patch of 1 file/);
    assert.match(r.out, /policy: denies symlink \(policy_denied:symlink\)\n {2}symlink "etc"/);
  });
  await withPatch("", async (file) => {
    const r = await inProcess(["--patch", file, "--json"]);
    assert.equal(r.code, 1);
    assert.deepEqual(JSON.parse(r.out).reasons, ["empty_patch"]);
  });
});

Deno.test("vouch scope usage errors exit 2", async () => {
  assert.equal((await inProcess([])).code, 2);
  assert.equal((await inProcess(["--patch", "/nonexistent/x.diff"])).code, 2);
  assert.equal((await inProcess(["--patch", "x", "--bogus"])).code, 2);
  assert.equal((await inProcess(["--patch", "x", "extra"])).code, 2);
  const bad = await inProcess(["--patch", "x", "--allow", "[ab"]);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /Cannot compile glob/);
});

Deno.test("vouch scope as a subprocess: file and stdin, stdout carries only the report", async () => {
  await withPatch(BAD, async (file) => {
    const r = await subprocess(["--patch", file, "--forbid", "src/a.ts"]);
    assert.equal(r.code, 1, r.err);
    assert.match(r.out, /^reject: 2 violation\(s\) in a patch of 2 file\(s\)\n/);
    assert.match(r.out, /forbidden "src\/a.ts"/);
    assert.match(r.out, /dotdot_component "..\/x"/);
  });
  const viaStdin = await subprocess(["--patch", "-", "--json"], GOOD);
  assert.equal(viaStdin.code, 0, viaStdin.err);
  assert.equal(JSON.parse(viaStdin.out).verdict, "accept");
  const usage = await subprocess(["--allow", "x"]);
  assert.equal(usage.code, 2);
  assert.equal(usage.out, "");
});

Deno.test("vouch scope: a refusal's line names the rule it broke, and why for a default one", async () => {
  const fake = "diff --git a/node_modules/.bin/mocha b/node_modules/.bin/mocha\n" +
    "new file mode 100755\n--- /dev/null\n+++ b/node_modules/.bin/mocha\n@@ -0,0 +1 @@\n+x\n";
  await withPatch(fake, async (file) => {
    const r = await inProcess(["--patch", file]);
    assert.equal(r.code, 1);
    assert.match(
      r.out,
      /forbidden "node_modules\/\.bin\/mocha": matches a forbidden glob \(rule: default --forbid "\*\*\/node_modules\/\*\*": installed dependencies/,
    );
    const own = await inProcess(["--patch", file, "--forbid", "vendor/**", "--allow", "src/**"]);
    assert.match(
      own.out,
      /outside_allowed "node_modules\/\.bin\/mocha": .*\(rule: --allow "src\/\*\*"\)/,
    );
  });
});
