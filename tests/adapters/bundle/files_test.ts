import assert from "node:assert/strict";
import { listBundleEntries, readBundleFile } from "../../../adapters/bundle/files.ts";
import { sha256Hex } from "../../../adapters/digest/mod.ts";

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "vouch-bundle-files-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("readBundleFile() hashes a regular file while streaming, keeping bytes on request", async () => {
  await withDir(async (dir) => {
    const content = new Uint8Array(200_000).map((_, i) => i % 251);
    await Deno.mkdir(`${dir}/sub`);
    await Deno.writeFile(`${dir}/sub/data.bin`, content);
    const seen = await readBundleFile(dir, "sub/data.bin", { maxBytes: 200_000, keepBytes: true });
    assert.ok(seen.ok);
    assert.equal(seen.digest, sha256Hex(content));
    assert.equal(seen.size, 200_000);
    assert.deepEqual(seen.bytes, content);
    const noBytes = await readBundleFile(dir, "sub/data.bin", { maxBytes: 200_000 });
    assert.ok(noBytes.ok);
    assert.equal(noBytes.bytes, undefined);
  });
});

Deno.test("readBundleFile() refuses files over the verifier-owned cap", async () => {
  await withDir(async (dir) => {
    await Deno.writeFile(`${dir}/big`, new Uint8Array(1001));
    const seen = await readBundleFile(dir, "big", { maxBytes: 1000 });
    assert.equal(seen.ok ? "ok" : seen.code, "file_oversize");
  });
});

Deno.test("readBundleFile() refuses symlinks, also in a parent directory", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/real`, "x");
    await Deno.symlink(`${dir}/real`, `${dir}/link`);
    await Deno.symlink("/etc", `${dir}/etc`);
    const direct = await readBundleFile(dir, "link", { maxBytes: 10 });
    assert.equal(direct.ok ? "ok" : direct.code, "file_symlink");
    const parent = await readBundleFile(dir, "etc/hostname", { maxBytes: 10_000 });
    assert.equal(parent.ok ? "ok" : parent.code, "file_symlink");
  });
});

Deno.test("readBundleFile() refuses hard-linked files", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/a`, "x");
    await Deno.link(`${dir}/a`, `${dir}/b`);
    const seen = await readBundleFile(dir, "a", { maxBytes: 10 });
    assert.equal(seen.ok ? "ok" : seen.code, "file_hardlinked");
  });
});

Deno.test("readBundleFile() refuses directories, FIFOs and missing files", async () => {
  await withDir(async (dir) => {
    await Deno.mkdir(`${dir}/d`);
    const fifo = await new Deno.Command("mkfifo", { args: [`${dir}/fifo`] }).output();
    assert.ok(fifo.success, "mkfifo must be available for this test");
    await Deno.writeTextFile(`${dir}/file`, "x");
    const code = async (p: string) => {
      const r = await readBundleFile(dir, p, { maxBytes: 10 });
      return r.ok ? "ok" : r.code;
    };
    assert.equal(await code("d"), "file_not_regular");
    assert.equal(await code("fifo"), "file_not_regular");
    assert.equal(await code("nope"), "file_missing");
    assert.equal(await code("nodir/x"), "file_missing");
    assert.equal(await code("file/x"), "file_not_regular");
  });
});

Deno.test("listBundleEntries() lists files and symlinks without following them, bounded", async () => {
  await withDir(async (dir) => {
    await Deno.mkdir(`${dir}/a/b`, { recursive: true });
    await Deno.writeTextFile(`${dir}/a/b/c.txt`, "1");
    await Deno.writeTextFile(`${dir}/top`, "1");
    await Deno.symlink("/etc", `${dir}/link`);
    await Deno.mkdir(`${dir}/empty`);
    const listed = await listBundleEntries(dir);
    assert.deepEqual(listed, { ok: true, paths: ["a/b/c.txt", "link", "top"] });
    const capped = await listBundleEntries(dir, { maxEntries: 2 });
    assert.equal(capped.ok, false);
    const shallow = await listBundleEntries(dir, { maxDepth: 1 });
    assert.equal(shallow.ok, false);
  });
});
