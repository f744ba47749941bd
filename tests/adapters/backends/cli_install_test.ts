/**
 * The claude/codex preflight told from the npm package's own metadata (issue
 * #21): a complete install needs no process (no sandboxed `--version`); an
 * incomplete or unknown one still gets the `--version` probe and fails closed.
 */
import assert from "node:assert/strict";
import { installedVersion } from "../../../adapters/backends/_cli_install.ts";
import { codexBackend } from "../../../adapters/backends/codex_backend.ts";
import { claudeBackend } from "../../../adapters/backends/claude_backend.ts";

const CODEX = ["@openai/codex"];
const PLATFORM = `@openai/codex-${Deno.build.os}-${Deno.build.arch === "x86_64" ? "x64" : "arm64"}`;

interface Fake {
  readonly root: string;
  readonly bin: string;
  readonly ran: string;
}

/** An npm-shaped install of `@openai/codex` whose program records being run. */
async function fakeInstall(opts: {
  version?: string | null;
  platform?: boolean;
  name?: string;
  shebang?: string;
  binTarget?: string;
  versionExit?: number;
} = {}): Promise<Fake> {
  const root = await Deno.makeTempDir({ prefix: "vouch-cli-install-" });
  await Deno.chmod(root, 0o755);
  const pkg = `${root}/node_modules/@openai/codex`;
  await Deno.mkdir(`${pkg}/bin`, { recursive: true });
  await Deno.mkdir(`${root}/node_modules/.bin`, { recursive: true });
  const ran = `${root}/ran`;
  const json: Record<string, unknown> = {
    name: opts.name ?? "@openai/codex",
    bin: { codex: opts.binTarget ?? "bin/codex.js" },
    optionalDependencies: { [PLATFORM]: "npm:@openai/codex@1.2.3-x" },
  };
  if (opts.version !== null) json.version = opts.version ?? "1.2.3";
  await Deno.writeTextFile(`${pkg}/package.json`, JSON.stringify(json));
  await Deno.writeTextFile(
    `${pkg}/bin/codex.js`,
    `${opts.shebang ?? "#!/bin/sh"}\necho ran >> ${ran}\necho "codex 9.9"\nexit ${
      opts.versionExit ?? 0
    }\n`,
  );
  await Deno.chmod(`${pkg}/bin/codex.js`, 0o755);
  await Deno.symlink("../@openai/codex/bin/codex.js", `${root}/node_modules/.bin/codex`);
  if (opts.platform !== false) {
    await Deno.mkdir(`${root}/node_modules/${PLATFORM}`, { recursive: true });
    await Deno.writeTextFile(
      `${root}/node_modules/${PLATFORM}/package.json`,
      JSON.stringify({ name: "@openai/codex", version: "1.2.3-x" }),
    );
  }
  return { root, bin: `${root}/node_modules/.bin/codex`, ran };
}

const ranTimes = (f: Fake) =>
  Deno.readTextFile(f.ran).then((t) => t.trim().split("\n").length, () => 0);

Deno.test("cli install: a complete npm install names its version and the preflight starts nothing", async () => {
  const f = await fakeInstall();
  try {
    assert.equal(await installedVersion(f.bin, CODEX, "/nonexistent-home"), "1.2.3");
    const backend = codexBackend({ executable: f.bin });
    assert.equal(await backend.installedVersion?.(), "1.2.3");
    assert.equal(await backend.preflight?.(), null);
    assert.equal(await ranTimes(f), 0, "the preflight ran the CLI");
    // Not the package the backend expects: unknown from metadata.
    assert.equal(await claudeBackend({ executable: f.bin }).installedVersion?.(), null);
  } finally {
    await Deno.remove(f.root, { recursive: true });
  }
});

Deno.test("cli install: what metadata cannot vouch for is left to --version (which fails closed)", async () => {
  const cases: [string, Parameters<typeof fakeInstall>[0]][] = [
    ["no version", { version: null }],
    ["the platform's package missing", { platform: false }],
    ["another package", { name: "@openai/not-codex" }],
    ["not the package's bin", { binTarget: "bin/other.js" }],
    ["an interpreter that is not absolute", { shebang: "#!node" }],
    ["an interpreter in HOME", { shebang: "#!/bin/sh" }],
  ];
  for (const [what, opts] of cases) {
    const f = await fakeInstall({ ...opts, versionExit: 3 });
    try {
      // "an interpreter in HOME": HOME is /bin here.
      const home = what === "an interpreter in HOME" ? "/bin" : "/nonexistent-home";
      assert.equal(await installedVersion(f.bin, CODEX, home), null, what);
      if (what === "an interpreter in HOME") continue;
      const pre = await codexBackend({ executable: f.bin }).preflight?.();
      assert.equal(pre?.code, "config", what);
      // `#!node` cannot even be spawned: it fails closed too.
      if (what === "an interpreter that is not absolute") continue;
      assert.equal(pre?.message, "codex: `--version` exited 3", what);
      assert.equal(await ranTimes(f), 1, `${what}: --version did not run`);
    } finally {
      await Deno.remove(f.root, { recursive: true });
    }
  }
});

Deno.test("cli install: a directory closed to other uids (the agent's, as root) is not vouched for", async () => {
  const f = await fakeInstall();
  try {
    await Deno.chmod(f.root, 0o700);
    assert.equal(await installedVersion(f.bin, CODEX, "/nonexistent-home"), null);
  } finally {
    await Deno.remove(f.root, { recursive: true });
  }
});

Deno.test("cli install: a missing program is not vouched for", async () => {
  assert.equal(await installedVersion("/nonexistent/codex", CODEX), null);
  assert.equal(await installedVersion("codex", CODEX), null);
  assert.equal(await installedVersion("/bin/sh", CODEX), null);
});

/** A 64-bit ELF header with one program header: PT_INTERP naming `loader`. */
function elfAsking(loader: string): Uint8Array {
  const bytes = new Uint8Array(120 + loader.length + 1);
  bytes.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]);
  const view = new DataView(bytes.buffer);
  view.setBigUint64(0x20, 64n, true); // e_phoff
  view.setUint16(0x36, 56, true); // e_phentsize
  view.setUint16(0x38, 1, true); // e_phnum
  view.setUint32(64, 3, true); // PT_INTERP
  view.setBigUint64(64 + 8, 120n, true); // p_offset
  view.setBigUint64(64 + 0x20, BigInt(loader.length + 1), true); // p_filesz
  bytes.set(new TextEncoder().encode(loader), 120);
  return bytes;
}

Deno.test("cli install: a native binary whose dynamic loader is not here is not vouched for", async () => {
  const f = await fakeInstall();
  try {
    const bin = `${f.root}/node_modules/@openai/codex/bin/codex.js`;
    await Deno.writeFile(bin, elfAsking("/nonexistent/ld-musl-x86_64.so.1"));
    assert.equal(await installedVersion(f.bin, CODEX, "/nonexistent-home"), null);
    // The same binary asking for a loader that is here, and one that names none (static).
    const here = Deno.realPathSync("/bin/sh");
    await Deno.writeFile(bin, elfAsking(here));
    assert.equal(await installedVersion(f.bin, CODEX, "/nonexistent-home"), "1.2.3");
    const staticElf = elfAsking("x");
    new DataView(staticElf.buffer).setUint32(64, 1, true); // PT_LOAD: no PT_INTERP
    await Deno.writeFile(bin, staticElf);
    assert.equal(await installedVersion(f.bin, CODEX, "/nonexistent-home"), "1.2.3");
  } finally {
    await Deno.remove(f.root, { recursive: true });
  }
});
