import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { runCli } from "../../cli/main.ts";
import { bufferIo, buildLogFixture, rewriteLog } from "./_log_fixture.ts";

async function attest(args: string[]) {
  const b = bufferIo();
  const code = await runCli(["attest", ...args], b.io);
  return { code, out: b.out, err: b.err };
}

async function withStateEnv<T>(state: string, fn: () => Promise<T>): Promise<T> {
  const saved = Deno.env.get("XDG_STATE_HOME");
  Deno.env.set("XDG_STATE_HOME", state);
  try {
    return await fn();
  } finally {
    if (saved === undefined) Deno.env.delete("XDG_STATE_HOME");
    else Deno.env.set("XDG_STATE_HOME", saved);
  }
}

Deno.test("vouch attest export, then verify with only the public key", async () => {
  const fx = await buildLogFixture();
  try {
    await withStateEnv(fx.state, async () => {
      const env = `${fx.root}/t1.intoto.json`;
      const pub = `${fx.root}/vouch.pub`;
      const exported = await attest([
        "export",
        "--log",
        fx.logPath,
        "--task",
        "t1",
        "--out",
        env,
        "--pub-out",
        pub,
      ]);
      assert.equal(exported.code, 0, exported.err);
      const pem = await attest(["pubkey", "--repo", fx.repo]);
      assert.equal(pem.out, await Deno.readTextFile(pub));
      const envelope = JSON.parse(await Deno.readTextFile(env));
      assert.equal(envelope.payloadType, "application/vnd.in-toto+json");
      const statement = JSON.parse(Buffer.from(envelope.payload, "base64").toString());
      assert.equal(statement._type, "https://in-toto.io/Statement/v1");
      assert.equal(statement.predicate.task, "t1");

      // stdout export is the same statement
      const stdout = await attest(["export", "--log", fx.logPath]);
      assert.equal(JSON.parse(stdout.out).payload, envelope.payload);

      await Deno.writeFile(`${fx.root}/t1.diff`, fx.diff);
      await Deno.writeTextFile(`${fx.root}/other.diff`, "diff --git a/x b/x\n");
      // Verification does not need the state directory at all.
      await withStateEnv(`${fx.root}/nowhere`, async () => {
        const ok = await attest(["verify", env, "--key", pub, "--patch", `${fx.root}/t1.diff`]);
        assert.equal(ok.code, 0, ok.out);
        assert.match(ok.out, /^VERIFIED attestation/);
        assert.match(ok.out, /checks {4}unit pass/);
        const json = JSON.parse((await attest(["verify", env, "--key", pub, "--json"])).out);
        assert.equal(json.verified, true);
        const wrongPatch = await attest([
          "verify",
          env,
          "--key",
          pub,
          "--patch",
          `${fx.root}/other.diff`,
        ]);
        assert.equal(wrongPatch.code, 1);
        assert.match(wrongPatch.out, /subject_mismatch/);
        // tamper with the payload
        const statement2 = { ...statement, predicate: { ...statement.predicate, task: "t2" } };
        await Deno.writeTextFile(
          `${fx.root}/bad.json`,
          JSON.stringify({
            ...envelope,
            payload: Buffer.from(JSON.stringify(statement2)).toString("base64"),
          }),
        );
        const bad = await attest(["verify", `${fx.root}/bad.json`, "--key", pub]);
        assert.equal(bad.code, 1);
        assert.match(bad.out, /REJECTED bad_signature/);
        await Deno.writeTextFile(`${fx.root}/junk.json`, "{not json");
        assert.equal((await attest(["verify", `${fx.root}/junk.json`, "--key", pub])).code, 1);
      });
    });
  } finally {
    await fx.cleanup();
  }
});

Deno.test("vouch attest refuses tampered logs and forged patches; usage errors exit 2", async () => {
  const fx = await buildLogFixture();
  try {
    await withStateEnv(fx.state, async () => {
      assert.equal((await attest([])).code, 2);
      assert.equal((await attest(["bogus"])).code, 2);
      assert.equal((await attest(["verify", "x.json"])).code, 2);
      assert.equal((await attest(["verify", "--key", "k"])).code, 2);
      assert.equal((await attest(["export", "--log", fx.logPath, "--task", "nope"])).code, 1);
      // forge the minted patch's passedAt and re-chain the log: MAC fails
      await rewriteLog(
        fx.logPath,
        (kind, body) =>
          kind === "verified_patch.minted"
            ? { ...(body as object), passedAt: 1_700_000_020_001 }
            : body,
      );
      const forged = await attest(["export", "--log", fx.logPath]);
      assert.equal(forged.code, 1);
      assert.match(forged.err, /MAC mismatch/);
      const text = await Deno.readTextFile(fx.logPath);
      await Deno.writeTextFile(
        fx.logPath,
        text.replace('"passedAt":1700000020001', '"passedAt":1700000020002'),
      );
      const tampered = await attest(["export", "--log", fx.logPath]);
      assert.equal(tampered.code, 1);
      assert.match(tampered.err, /tampered/);
    });
  } finally {
    await fx.cleanup();
  }
});
