/**
 * The sandbox probe remembered across runs (issue #21: about 15 processes and
 * 0.3 s of every `vouch run`'s start): a second run of the same bwrap in this
 * boot starts none of them; `fresh` (the doctor) probes again and forgets a
 * success that no longer holds; a remembered file someone else may write is
 * not trusted. Each run is its own process (the in-process memo is not what
 * is tested); the bwrap is a wrapper that counts its starts.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { probeSandbox } from "../../../adapters/host/sandbox_probe.ts";

const PROBE = new URL("../../../adapters/host/sandbox_probe.ts", import.meta.url).href;
const available = (await probeSandbox()).bwrap;

/** One probe in a fresh process; the bwrap availability it reports. */
async function probeInProcess(
  bwrap: string,
  dir: string,
  fresh = false,
): Promise<{ available: boolean }> {
  const code = `const { probeSandbox } = await import(${JSON.stringify(PROBE)});\n` +
    `const p = await probeSandbox({ bwrapPath: ${JSON.stringify(bwrap)}, rememberIn: ${
      JSON.stringify(dir)
    }, fresh: ${fresh} });\nconsole.log(JSON.stringify(p.bwrap));`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-check", code],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout).trim().split("\n").at(-1) ?? "";
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return JSON.parse(text);
}

/** A bwrap that notes each start in `log`, then runs the real one (or fails: `exit 1`). */
async function countingBwrap(dir: string, real: string, fail = false): Promise<string> {
  const path = `${dir}/bwrap${fail ? "-broken" : ""}`;
  const log = `${dir}/starts`;
  await Deno.writeTextFile(
    path,
    `#!/bin/sh\necho "$1" >> ${log}\n${
      fail ? 'case "$1" in --version) ;; *) exit 1;; esac\n' : ""
    }` +
      `exec ${real} "$@"\n`,
  );
  await Deno.chmod(path, 0o755);
  return path;
}

const starts = (dir: string) =>
  Deno.readTextFile(`${dir}/starts`).then((t) => t.trim().split("\n").length, () => 0);

Deno.test({
  name: "probe cache: a second run of the same bwrap in this boot starts no probe; fresh does",
  ignore: !available.available || available.path === null,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "vouch-probe-cache-" });
    try {
      await Deno.chmod(dir, 0o755);
      const bwrap = await countingBwrap(dir, available.path!);
      assert.equal((await probeInProcess(bwrap, dir)).available, true);
      const first = await starts(dir);
      assert.ok(first >= 2, `the first probe ran bwrap ${first} times`);
      assert.equal((await probeInProcess(bwrap, dir)).available, true);
      assert.equal(await starts(dir), first, "the second run probed again");
      // The doctor probes afresh.
      assert.equal((await probeInProcess(bwrap, dir, true)).available, true);
      assert.equal(await starts(dir), 2 * first);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "probe cache: a remembered file others may write is not trusted; a failed fresh probe forgets",
  ignore: !available.available || available.path === null,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "vouch-probe-cache-" });
    try {
      await Deno.chmod(dir, 0o755);
      const bwrap = await countingBwrap(dir, available.path!);
      await probeInProcess(bwrap, dir);
      const first = await starts(dir);
      const [file] = [...Deno.readDirSync(dir)].filter((e) => e.name.startsWith("vouch-sandbox-"));
      assert.ok(file !== undefined, "nothing remembered");
      const remembered = `${dir}/${file.name}`;
      await Deno.chmod(remembered, 0o666);
      await probeInProcess(bwrap, dir);
      assert.equal(await starts(dir), 2 * first, "a file others may write was trusted");
      await Deno.chmod(remembered, 0o600);
      // A bwrap that no longer starts a sandbox: the doctor's fresh probe says so and forgets.
      const broken = await countingBwrap(dir, available.path!, true);
      assert.equal((await probeInProcess(broken, dir, true)).available, false);
      assert.equal(existsSync(remembered), false, "a success that no longer holds was kept");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
