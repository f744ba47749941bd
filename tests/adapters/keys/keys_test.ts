import assert from "node:assert/strict";
import {
  generateSigningKey,
  importPublicKey,
  keyDirectory,
  KeyError,
  loadOrCreateMacKey,
  loadOrCreateSigningKey,
  macKeyPath,
} from "../../../adapters/keys/mod.ts";

async function withDirs(fn: (state: string, repo: string) => Promise<void>): Promise<void> {
  const state = await Deno.makeTempDir({ prefix: "vouch-state-" });
  const repo = await Deno.makeTempDir({ prefix: "vouch-repo-" });
  try {
    await fn(state, repo);
  } finally {
    await Deno.remove(state, { recursive: true });
    await Deno.remove(repo, { recursive: true });
  }
}

const code = async (p: Promise<unknown>) => {
  try {
    await p;
    return "ok";
  } catch (e) {
    assert.ok(e instanceof KeyError, String(e));
    return e.code;
  }
};

Deno.test("loadOrCreateMacKey() creates a 0600 key in the state dir and persists it", async () => {
  await withDirs(async (state, repo) => {
    const env = { XDG_STATE_HOME: state };
    const a = await loadOrCreateMacKey({ repoRoot: repo, env });
    assert.ok(a.path.startsWith(`${state}/vouch/keys/`));
    assert.equal(Deno.statSync(a.path).mode! & 0o777, 0o600);
    assert.equal(Deno.statSync(`${state}/vouch/keys`).mode! & 0o777, 0o700);
    // A second process-equivalent load gets the same key: MACs made by one verify with the other.
    const b = await loadOrCreateMacKey({ repoRoot: repo, env });
    assert.equal(a.keyId, b.keyId);
    const data = new TextEncoder().encode("x");
    const mac = await crypto.subtle.sign("HMAC", a.cryptoKey, data);
    assert.ok(await crypto.subtle.verify("HMAC", b.cryptoKey, mac, data));
    // Different repositories get different keys.
    const repo2 = await Deno.makeTempDir({ prefix: "vouch-repo2-" });
    const other = await loadOrCreateMacKey({ repoRoot: repo2, env });
    await Deno.remove(repo2, { recursive: true });
    assert.notEqual(other.keyId, a.keyId);
    assert.notEqual(other.path, a.path);
    assert.equal(keyDirectory({ HOME: "/h" }), "/h/.local/state/vouch/keys");
  });
});

Deno.test("loadOrCreateMacKey() honours VOUCH_KEY_FILE but never inside the repository", async () => {
  await withDirs(async (state, repo) => {
    const file = `${state}/custom.key`;
    const key = await loadOrCreateMacKey({ repoRoot: repo, env: { VOUCH_KEY_FILE: file } });
    assert.equal(key.path, file);
    assert.equal(macKeyPath(repo, { VOUCH_KEY_FILE: file }), file);
    assert.equal(
      await code(loadOrCreateMacKey({ repoRoot: repo, env: { VOUCH_KEY_FILE: `${repo}/k` } })),
      "inside_worktree",
    );
    assert.equal(
      await code(loadOrCreateMacKey({ repoRoot: repo, env: { XDG_STATE_HOME: `${repo}/.st` } })),
      "inside_worktree",
    );
  });
});

Deno.test("loadOrCreateMacKey() refuses group-readable and corrupt key files", async () => {
  await withDirs(async (state, repo) => {
    const env = { XDG_STATE_HOME: state };
    const key = await loadOrCreateMacKey({ repoRoot: repo, env });
    Deno.chmodSync(key.path, 0o644);
    assert.equal(await code(loadOrCreateMacKey({ repoRoot: repo, env })), "insecure_permissions");
    Deno.writeTextFileSync(key.path, "{}");
    Deno.chmodSync(key.path, 0o600);
    assert.equal(await code(loadOrCreateMacKey({ repoRoot: repo, env })), "corrupt");
    assert.equal(await code(loadOrCreateMacKey({ repoRoot: repo, env: {} })), "no_state_dir");
  });
});

Deno.test("concurrent first use of a key agrees on one key", async () => {
  await withDirs(async (state, repo) => {
    const env = { XDG_STATE_HOME: state };
    const keys = await Promise.all(
      Array.from({ length: 8 }, () => loadOrCreateMacKey({ repoRoot: repo, env })),
    );
    assert.equal(new Set(keys.map((k) => k.keyId)).size, 1);
  });
});

Deno.test("Ed25519 signing keys persist and their public keys import from PEM and JWK", async () => {
  await withDirs(async (state, repo) => {
    const env = { XDG_STATE_HOME: state };
    const a = await loadOrCreateSigningKey({ repoRoot: repo, env });
    const b = await loadOrCreateSigningKey({ repoRoot: repo, env });
    assert.equal(a.keyId, b.keyId);
    assert.match(a.keyId, /^[0-9a-f]{64}$/);
    assert.equal(Deno.statSync(a.path).mode! & 0o777, 0o600);
    const pub = await importPublicKey(a.publicKeyPem);
    assert.equal(pub.keyId, a.keyId);
    const jwk = await crypto.subtle.exportKey("jwk", a.publicKey);
    assert.equal((await importPublicKey(JSON.stringify(jwk))).keyId, a.keyId);
    const sig = await crypto.subtle.sign("Ed25519", b.privateKey, new Uint8Array([1]));
    assert.ok(await crypto.subtle.verify("Ed25519", pub.cryptoKey, sig, new Uint8Array([1])));
    const fresh = await generateSigningKey();
    assert.notEqual(fresh.keyId, a.keyId);
    assert.equal(await code(importPublicKey("not a key")), "bad_public_key");
  });
});
