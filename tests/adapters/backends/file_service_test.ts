// The file service (adapters/backends/_file_service.ts) with its real helper,
// on Deno and on Node, unsandboxed and in bwrap: reads and writes go through
// descriptor-relative walking (no link anywhere on the path is followed, a
// missing parent is made), only regular single-link files are served and a
// read is bounded before it starts; a helper that cannot start or dies fails
// every request closed.
import assert from "node:assert/strict";
import {
  linkSync,
  mkdirSync,
  readFileSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { fileService } from "../../../adapters/backends/_file_service.ts";
import { bwrapProfile, findOnPath } from "../../../adapters/sandbox/bwrap.ts";
import type { SandboxProfile } from "../../../adapters/sandbox/profile.ts";
import { NODE } from "../../golden/cli_harness.ts";

const BWRAP = findOnPath("bwrap");
const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

function tree(): { root: string; wt: string; outside: string } {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "vouch-fsvc-" }));
  const wt = join(root, "wt");
  const outside = join(root, "outside");
  mkdirSync(join(wt, "src"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, "key"), "secret\n");
  writeFileSync(join(wt, "src/a.txt"), "hello\n");
  symlinkSync(outside, join(wt, "out"));
  symlinkSync(join(outside, "key"), join(wt, "key-link"));
  symlinkSync(join(outside, "nowhere"), join(wt, "dangling"));
  linkSync(join(outside, "key"), join(wt, "hard"));
  execFileSync("mkfifo", [join(wt, "fifo")]);
  writeFileSync(join(wt, "big"), "");
  truncateSync(join(wt, "big"), 64 * 1024 * 1024);
  return { root, wt, outside };
}

const cases: { name: string; runtime: string | null; confined: boolean }[] = [
  { name: "deno, none", runtime: Deno.execPath(), confined: false },
  { name: "node, none", runtime: NODE, confined: false },
  { name: "deno, bwrap", runtime: Deno.execPath(), confined: true },
  { name: "node, bwrap", runtime: NODE, confined: true },
];

for (const c of cases) {
  Deno.test({
    name: `file service (${c.name}): serves the tree, refuses links, specials and big files`,
    ignore: c.runtime === null || (c.confined && BWRAP === null),
    fn: async () => {
      const t = tree();
      const sandbox: SandboxProfile = c.confined
        ? bwrapProfile({ worktree: t.wt })
        : { kind: "none" };
      const files = fileService({ worktree: t.wt, sandbox, runtime: c.runtime! });
      try {
        const a = await files.read("src/a.txt", 1024);
        assert.equal(a.ok && dec(a.data), "hello\n");
        assert.deepEqual(await files.write("new/deep/b.txt", enc("made\n")), {
          ok: true,
          bytes: 5,
        });
        assert.equal(readFileSync(join(t.wt, "new/deep/b.txt"), "utf8"), "made\n");
        assert.deepEqual(await files.write("src/a.txt", enc("x")), { ok: true, bytes: 1 });
        assert.equal(readFileSync(join(t.wt, "src/a.txt"), "utf8"), "x");
        const l = await files.list("", 100);
        assert.ok(l.ok && l.entries.some(([n, d]) => n === "src" && d));
        const code = async (p: Promise<{ ok: boolean; code?: string }>) => (await p).code;
        assert.equal(await code(files.read("out/key", 1024)), "symlink");
        assert.equal(await code(files.read("key-link", 1024)), "symlink");
        assert.equal(await code(files.write("out/planted", enc("x"))), "symlink");
        assert.equal(await code(files.write("key-link", enc("x"))), "symlink");
        assert.equal(await code(files.write("dangling", enc("x"))), "symlink");
        assert.equal(await code(files.write("dangling/x", enc("x"))), "symlink");
        assert.equal(await code(files.list("out", 10)), "symlink");
        assert.equal(await code(files.read("hard", 1024)), "linked");
        assert.equal(await code(files.write("hard", enc("x"))), "linked");
        assert.equal(await code(files.read("fifo", 1024)), "not_regular");
        assert.equal(await code(files.read("src", 1024)), "not_regular");
        assert.equal(await code(files.read("big", 1024 * 1024)), "too_large");
        assert.equal(await code(files.read("missing", 1024)), "not_found");
        assert.equal(await code(files.read("src/../../outside/key", 1024)), "bad_request");
        assert.equal(await code(files.read("/etc/passwd", 1024)), "bad_request");
        // Nothing outside changed.
        assert.equal(readFileSync(join(t.outside, "key"), "utf8"), "secret\n");
        assert.deepEqual(Deno.readDirSync(t.outside).toArray().map((e) => e.name), ["key"]);
      } finally {
        await files.close();
        Deno.removeSync(t.root, { recursive: true });
      }
    },
  });
}

Deno.test("file service: a helper that cannot start fails every request closed", async () => {
  const t = tree();
  try {
    const none = fileService({ worktree: t.wt, sandbox: { kind: "none" }, runtime: "/bin/false" });
    const r = await none.read("src/a.txt", 100);
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.code, "unavailable");
    await none.close();
    const gone = fileService({
      worktree: t.wt,
      sandbox: { kind: "none" },
      runtime: "/nonexistent/deno",
    });
    const g = await gone.write("x", enc("x"));
    assert.equal(!g.ok && g.code, "unavailable");
    await gone.close();
    const after = fileService({ worktree: t.wt, sandbox: { kind: "none" } });
    await after.close();
    const closed = await after.read("src/a.txt", 100);
    assert.equal(!closed.ok && closed.code, "unavailable");
  } finally {
    Deno.removeSync(t.root, { recursive: true });
  }
});

Deno.test("file service: once the run is stopped, its helper is ended and requests fail closed", async () => {
  const t = tree();
  const stop = new AbortController();
  const files = fileService({ worktree: t.wt, sandbox: { kind: "none" }, signal: stop.signal });
  try {
    assert.equal((await files.read("src/a.txt", 100)).ok, true);
    stop.abort();
    const r = await files.read("src/a.txt", 100);
    assert.equal(!r.ok && r.code, "unavailable");
  } finally {
    await files.close();
    Deno.removeSync(t.root, { recursive: true });
  }
});
