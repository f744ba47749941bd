import assert from "node:assert/strict";
import fc from "fast-check";
import { hiddenPathHint, hiddenPaths } from "../../../adapters/deps/mod.ts";

Deno.test("hiddenPaths: only paths reported missing, existing on the host, outside the tree", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vouch-hidden-" });
  try {
    // Named only when others may reach it (a root vouch's check runs as uid 65534).
    await Deno.chmod(dir, 0o755);
    await Deno.mkdir(`${dir}/tools/bin`, { recursive: true, mode: 0o755 });
    await Deno.writeTextFile(`${dir}/tools/bin/lint`, "#!/bin/sh\n");
    const log = [
      `sh: 1: ${dir}/tools/bin/lint: not found`,
      `Error: Cannot find module '${dir}/tools'`,
      "sh: 1: /nonexistent/tool: not found", // missing on the host too: not a sandbox matter
      `/wt/tree/node_modules/.bin/x: not found`, // inside the tree: the check's own
      `ran ${dir}/tools/bin/lint fine`, // no "missing" wording
    ].join("\n");
    assert.deepEqual(hiddenPaths(log, { tree: "/wt/tree" }), [
      { path: `${dir}/tools/bin/lint`, mount: `${dir}/tools/bin` },
      { path: `${dir}/tools`, mount: `${dir}/tools` },
    ]);
    const hint = hiddenPathHint(log, { tree: "/wt/tree" }) ?? "";
    assert.match(hint, /exist on this machine but not inside the sandbox/);
    assert.match(hint, new RegExp(`--sandbox-ro ${dir}/tools/bin --sandbox-ro ${dir}/tools `));
    assert.equal(hiddenPathHint("all good\n", { tree: "/wt/tree" }), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("hiddenPaths (property): never throws, at most 5, never inside the tree", () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 300 }), fc.boolean(), (text, all) => {
      const r = hiddenPaths(`${text}\nENOENT ${text}`, {
        tree: "/t",
        exists: () => (all ? "file" : null),
      });
      assert.ok(r.length <= 5);
      for (const h of r) assert.ok(h.path.startsWith("/") && !h.path.startsWith("/t/"));
    }),
    { numRuns: 300 },
  );
});

Deno.test("hiddenPaths: no oracle of the host: a private path is never named, few paths are looked up", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vouch-hidden-" });
  try {
    // A key store's shape: a 0700 dir holding a 0600 file; and a 0600 file in an open dir.
    await Deno.chmod(dir, 0o755);
    await Deno.mkdir(`${dir}/keys`, { mode: 0o700 });
    await Deno.writeTextFile(`${dir}/keys/k.hmac.json`, "{}", { mode: 0o600 });
    await Deno.writeTextFile(`${dir}/secret`, "s", { mode: 0o600 });
    await Deno.chmod(`${dir}/secret`, 0o600);
    await Deno.writeTextFile(`${dir}/open`, "o");
    await Deno.chmod(`${dir}/open`, 0o644);
    const log = [`${dir}/keys/k.hmac.json`, `${dir}/keys`, `${dir}/secret`, `${dir}/open`]
      .map((p) => `cat: ${p}: No such file or directory`).join("\n");
    assert.deepEqual(hiddenPaths(log, { tree: "/t" }).map((h) => h.path), [`${dir}/open`]);
    // A file others may read inside a 0700 dir of this process's own (`mktemp -d`) is named:
    // --sandbox-ro binds the path itself.
    await Deno.mkdir(`${dir}/mine`, { mode: 0o700 });
    await Deno.chmod(`${dir}/mine`, 0o700);
    await Deno.mkdir(`${dir}/mine/shared`, { mode: 0o755 });
    await Deno.writeTextFile(`${dir}/mine/shared/check.js`, "x");
    await Deno.chmod(`${dir}/mine/shared/check.js`, 0o644);
    assert.deepEqual(
      hiddenPaths(`Error: Cannot find module '${dir}/mine/shared/check.js'`, { tree: "/t" }),
      [{ path: `${dir}/mine/shared/check.js`, mount: `${dir}/mine/shared` }],
    );
    // However many paths the output names (one line or many), at most 5 are looked up.
    const asked: string[] = [];
    const names = Array.from({ length: 40 }, (_, i) => `/probe/${i}`);
    const exists = (p: string) => (asked.push(p), null);
    hiddenPaths(`ENOENT ${names.join(" ")}\n${names.map((n) => `ENOENT ${n}x`).join("\n")}`, {
      tree: "/t",
      exists,
    });
    assert.equal(asked.length, 5);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
