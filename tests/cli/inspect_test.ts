import assert from "node:assert/strict";
import { runCli } from "../../cli/main.ts";
import { EventLog, readLogFile, recordKernelInit } from "../../adapters/log/mod.ts";
import { driveKernel } from "../adapters/audit/_kernel_driver.ts";
import { bufferIo, buildLogFixture, rewriteLog as rewrite } from "./_log_fixture.ts";

async function inspect(args: string[]) {
  const b = bufferIo();
  const code = await runCli(["inspect", ...args], b.io);
  return { code, out: b.out, err: b.err };
}

Deno.test("vouch inspect verifies a real kernel log and prints the timeline", async () => {
  const fx = await buildLogFixture();
  try {
    const r = await inspect([fx.logPath, "--key-file", fx.key.path]);
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(r.out, /audit\s+VERIFIED\s+log intact, evidence authenticated/);
    assert.match(r.out, /tasks\s+task t1 verified\n/);
    assert.match(r.out, /receipts\s+ok\s+5\/5 verified/);
    assert.match(r.out, /evidence\s+ok\s+5 check outcome\(s\) in 3 result event\(s\) match/);
    assert.match(r.out, /patches\s+ok\s+1\/1 verified/);
    assert.match(r.out, /replay\s+ok\s+\d+ kernel steps reproduce/);
    assert.match(r.out, /task t1 {2}verified, 16\.0s, 2 round\(s\)/);
    // The kernel's own states: the baseline before the first backend round, the mint on verified.
    assert.match(r.out, /submitted \+0\.0s -> baselining \+1\.0s -> worktree_ready \+2\.0s/);
    assert.match(r.out, /verified \+12\.0s -> awaiting_approval \+13\.0s/);
    assert.match(r.out, /checks {4}baseline: unit FAIL/);
    // Rounds are numbered from 1, as in `vouch run`'s table: the first fails, the repair passes.
    assert.match(r.out, /checks {4}round 1: unit FAIL, lint pass/);
    assert.match(r.out, /checks {4}round 2: unit pass, lint pass/);
    assert.match(r.out, /receipt {3}seq \d+ round:unit exit 0 1\.3s/);
    assert.match(r.out, /\[redacted:authorization\]/);
    assert.ok(!r.out.includes("sk-live-abcdef123456"), "secret shown");

    const json = await inspect([fx.logPath, "--json", "--key-file", fx.key.path]);
    assert.equal(json.code, 0);
    const report = JSON.parse(json.out);
    assert.equal(report.audit, "verified");
    assert.equal(report.summary, "log intact, evidence authenticated and bound, replay reproduces");
    assert.equal(report.verdict, undefined);
    assert.equal(report.evidence.issue, null);
    assert.equal(report.replay.status, "deterministic");
    assert.equal(report.tasks[0].verdict, "verified");
    const head = `${report.log.head.seq}:${report.log.head.hash}`;
    assert.equal(
      (await inspect([fx.logPath, "--key-file", fx.key.path, "--expect-head", head])).code,
      0,
    );
    const wrong = `${report.log.head.seq}:${"0".repeat(64)}`;
    const bad = await inspect([fx.logPath, "--key-file", fx.key.path, "--expect-head", wrong]);
    assert.equal(bad.code, 1);
    assert.match(bad.out, /head_mismatch/);
    const beyond = await inspect([
      fx.logPath,
      "--key-file",
      fx.key.path,
      "--expect-head",
      `${report.log.head.seq + 5}:${"a".repeat(64)}`,
    ]);
    assert.equal(beyond.code, 1);
    assert.match(beyond.out, /truncated/);
  } finally {
    await fx.cleanup();
  }
});

Deno.test("vouch inspect exit codes: usage 2, unreadable log 5, missing key 1, tampered 1", async () => {
  const fx = await buildLogFixture();
  try {
    assert.equal((await inspect([fx.logPath, "--expect-head", "12"])).code, 2);
    assert.equal((await inspect([fx.logPath, "--bogus"])).code, 2);
    assert.equal((await inspect([fx.logPath, "other.jsonl"])).code, 2);
    // A log that cannot be read is "could not run" (5), not a usage error.
    assert.equal((await inspect([`${fx.root}/missing.jsonl`])).code, 5);
    // receipts present, no key reachable -> unauthenticated, fail closed
    const saved = Deno.env.get("XDG_STATE_HOME");
    Deno.env.set("XDG_STATE_HOME", `${fx.root}/empty-state`);
    try {
      const r = await inspect([fx.logPath]);
      assert.equal(r.code, 1);
      assert.match(r.out, /UNCHECKED/);
      assert.match(r.out, /audit\s+UNAUTHENTICATED\s+chain intact, evidence unauthenticated/);
      assert.doesNotMatch(r.out, /VERIFIED/);
      // with the right state dir, the default key is found
      Deno.env.set("XDG_STATE_HOME", fx.state);
      assert.equal((await inspect([fx.logPath])).code, 0);
    } finally {
      if (saved === undefined) Deno.env.delete("XDG_STATE_HOME");
      else Deno.env.set("XDG_STATE_HOME", saved);
    }
    // a flipped byte
    const bytes = await Deno.readFile(fx.logPath);
    bytes[200] = bytes[200]! ^ 1;
    await Deno.writeFile(fx.logPath, bytes);
    const t = await inspect([fx.logPath, "--key-file", fx.key.path]);
    assert.equal(t.code, 1);
    assert.match(t.out, /log\s+TAMPERED\s+\w+ at line 1/);
  } finally {
    await fx.cleanup();
  }
});

Deno.test("vouch inspect: a log copied outside every repository, beside the key store (HOME), is audited", async () => {
  const fx = await buildLogFixture();
  // fx.root holds the state dir (the key store's parent's parent), as HOME holds
  // ~/.local/state: a copy of the log there is in no repository.
  const copy = `${fx.root}/events-copy.jsonl`;
  await Deno.copyFile(fx.logPath, copy);
  const saved = Deno.env.get("XDG_STATE_HOME");
  Deno.env.set("XDG_STATE_HOME", fx.state);
  try {
    // No repository, so no repository key: audited, unauthenticated (it said "inside the
    // repository <HOME>" and audited nothing).
    const r = await inspect([copy, "--json"]);
    assert.equal(r.code, 1, r.out + r.err);
    assert.doesNotMatch(r.err, /inside the repository/);
    assert.equal(JSON.parse(r.out).audit, "unauthenticated");
    // The key named explicitly authenticates it.
    const named = await inspect([copy, "--key-file", fx.key.path]);
    assert.equal(named.code, 0, named.out + named.err);
    assert.match(named.out, /audit\s+VERIFIED/);
    // A key file inside the repository the log is in is still refused, with its code.
    await Deno.copyFile(fx.key.path, `${fx.repo}/planted.hmac.json`);
    const planted = await inspect([fx.logPath, "--key-file", `${fx.repo}/planted.hmac.json`]);
    assert.equal(planted.code, 1);
    assert.match(planted.err, /inside the repository .*\(inside_worktree\)/);
  } finally {
    if (saved === undefined) Deno.env.delete("XDG_STATE_HOME");
    else Deno.env.set("XDG_STATE_HOME", saved);
    await fx.cleanup();
  }
});

Deno.test("vouch inspect catches a self-consistent rewrite through the receipts", async () => {
  const fx = await buildLogFixture();
  try {
    await rewrite(
      fx.logPath,
      (kind, body, seq) =>
        kind === "kernel.event" && seq === 2
          ? { ...(body as object), goal: "something else" }
          : body,
    );
    assert.equal((await readLogFile(fx.logPath)).status, "ok", "chain alone is consistent");
    const r = await inspect([fx.logPath, "--key-file", fx.key.path]);
    assert.equal(r.code, 1);
    assert.match(r.out, /receipts\s+TAMPERED\s+anchor_mismatch/);
  } finally {
    await fx.cleanup();
  }
});

Deno.test("vouch inspect reports non-determinism with the first differing seq", async () => {
  const fx = await buildLogFixture();
  try {
    let target = -1;
    await rewrite(fx.logPath, (kind, body, seq) => {
      if (kind !== "kernel.actions" || target !== -1) return body;
      const b = body as { forSeq: number; actions: { kind: string }[] };
      if (!b.actions.some((a) => a.kind === "create_worktree")) return body;
      target = b.forSeq;
      void seq;
      return {
        ...b,
        actions: b.actions.map((a) => a.kind === "create_worktree" ? { ...a, baseRev: "evil" } : a),
      };
    });
    const r = await inspect([fx.logPath]);
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, new RegExp(`replay\\s+DIVERGENT at seq ${target} \\(actions_differ\\)`));
    const json = JSON.parse((await inspect([fx.logPath, "--json"])).out);
    assert.equal(json.audit, "divergent");
    assert.equal(json.replay.seq, target);
  } finally {
    await fx.cleanup();
  }
});

Deno.test("vouch inspect runs as a real process (deno task entry point)", async () => {
  const fx = await buildLogFixture();
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        "--allow-read",
        "--allow-write",
        "--allow-env",
        "--allow-run",
        new URL("../../cli/main.ts", import.meta.url).pathname,
        "inspect",
        fx.logPath,
        "--key-file",
        fx.key.path,
        "--json",
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    assert.equal(JSON.parse(new TextDecoder().decode(out.stdout)).audit, "verified");
  } finally {
    await fx.cleanup();
  }
});

Deno.test("vouch inspect exits 1 on a log written by another kernel version and says so", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vouch-other-kernel-" });
  try {
    const path = `${dir}/events.jsonl`;
    const log = await EventLog.open(path);
    await recordKernelInit(log, null, "vouch.lifecycle/1");
    await driveKernel(log, { task: "t1", passRound: 0 }, 1);
    await log.close();
    const r = await inspect([path]);
    assert.equal(r.code, 1, r.out + r.err);
    assert.match(r.out, /replay\s+NOT RUN\s+seq 1 was written by vouch\.lifecycle\/1/);
    assert.match(r.out, /audit\s+OTHER_KERNEL/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("vouch inspect: an empty file or foreign bytes is not a vouch log (exit 1)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vouch-not-a-log-" });
  try {
    for (const [name, bytes] of [["empty", ""], ["junk", "\x00\x01 not a log at all"]] as const) {
      const path = `${dir}/${name}.jsonl`;
      await Deno.writeTextFile(path, bytes);
      const r = await inspect([path]);
      assert.equal(r.code, 1, r.out);
      assert.match(r.out, /audit\s+NOT A VOUCH LOG\s+not a vouch log/);
      assert.doesNotMatch(r.out, /VERIFIED/);
      const json = JSON.parse((await inspect([path, "--json"])).out);
      assert.equal(json.audit, "not_a_log");
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("vouch inspect: a verified log of a rejected task says the task was rejected", async () => {
  // The scope check rejects the patch: the task ends rejected, and the log is still intact.
  const fx = await buildLogFixture({ scope: "reject" });
  try {
    const r = await inspect([fx.logPath, "--key-file", fx.key.path]);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /audit\s+VERIFIED\s+log intact/);
    assert.match(r.out, /tasks\s+task t1 rejected\n/);
    const json = JSON.parse((await inspect([fx.logPath, "--json", "--key-file", fx.key.path])).out);
    assert.equal(json.audit, "verified");
    assert.equal(json.tasks[0].verdict, "rejected");
  } finally {
    await fx.cleanup();
  }
});
