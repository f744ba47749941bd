import assert from "node:assert/strict";
import { runCli } from "../../cli/main.ts";
import type { CliIo } from "../../cli/command.ts";
import { createDenoRepo, git, snapshot, snapshotDifferences } from "../golden/fixture_repos.ts";

function bufferIo(): CliIo & { stdout: string; stderr: string } {
  const io = {
    stdout: "",
    stderr: "",
    isTerminal: false,
    out: (t: string) => void (io.stdout += t),
    err: (t: string) => void (io.stderr += t),
  };
  return io;
}

async function withRepo(fn: (dir: string, state: string) => Promise<void>): Promise<void> {
  const repo = await createDenoRepo();
  const state = await Deno.makeTempDir();
  const saved = [Deno.env.get("VOUCH_KEY_FILE"), Deno.env.get("VOUCH_WORKTREE_ROOT")];
  Deno.env.set("VOUCH_KEY_FILE", `${state}/key`);
  Deno.env.set("VOUCH_WORKTREE_ROOT", `${state}/wt`);
  try {
    await fn(repo.dir, state);
  } finally {
    for (const [i, name] of ["VOUCH_KEY_FILE", "VOUCH_WORKTREE_ROOT"].entries()) {
      const v = saved[i];
      if (v === undefined) Deno.env.delete(name);
      else Deno.env.set(name, v);
    }
    await repo.cleanup();
    await Deno.remove(state, { recursive: true });
  }
}

async function patchFor(dir: string, from: string, to: string, file = "math.ts"): Promise<string> {
  const path = `${dir}/${file}`;
  const original = await Deno.readTextFile(path);
  await Deno.writeTextFile(path, original.replace(from, to));
  const patch = await git(dir, "diff", "--binary", "--full-index");
  await Deno.writeTextFile(path, original);
  const out = `${dir}/../fix.patch`;
  await Deno.writeTextFile(out, patch);
  return out;
}

const TEST = `'${Deno.execPath()}' test --no-check --no-prompt --quiet`;

Deno.test("vouch verify: a fixing patch is verified in a clean tree (exit 0, --json)", async () => {
  await withRepo(async (dir) => {
    const before = await snapshot(dir);
    const patch = await patchFor(dir, "a - b", "a + b");
    const io = bufferIo();
    const code = await runCli(
      ["verify", "--dir", dir, "--patch", patch, "--verify", TEST, "--sandbox", "none", "--json"],
      io,
    );
    const out = JSON.parse(io.stdout);
    assert.equal(code, 0, io.stderr + io.stdout);
    assert.equal(out.verdict, "verified");
    assert.equal(out.checks[0].passed, true);
    assert.ok(typeof out.verifiedPatch === "string");
    assert.deepEqual(snapshotDifferences(before, await snapshot(dir)), []);
  });
});

Deno.test("vouch verify: a patch that does not fix is rejected (exit 1)", async () => {
  await withRepo(async (dir) => {
    const patch = await patchFor(dir, "a - b", "a * b");
    const io = bufferIo();
    const code = await runCli(
      ["verify", "--dir", dir, "--patch", patch, "--verify", TEST, "--sandbox", "none"],
      io,
    );
    assert.equal(code, 1);
    assert.match(io.stdout, /^REJECTED sha256:/);
    assert.match(io.stdout, /checks_failed/);
  });
});

Deno.test("vouch verify: a patch touching .github is rejected before anything runs", async () => {
  await withRepo(async (dir) => {
    await Deno.mkdir(`${dir}/.github/workflows`, { recursive: true });
    await Deno.writeTextFile(`${dir}/.github/workflows/ci.yml`, "on: push\n");
    await git(dir, "add", "-N", ".github/workflows/ci.yml");
    const patch = await git(dir, "diff", "--binary", "--full-index");
    await git(dir, "rm", "-q", "--cached", ".github/workflows/ci.yml");
    await Deno.remove(`${dir}/.github`, { recursive: true });
    await Deno.writeTextFile(`${dir}/../ci.patch`, patch);
    const io = bufferIo();
    const code = await runCli(
      ["verify", "--dir", dir, "--patch", `${dir}/../ci.patch`, "--verify", "true", "--json"],
      io,
    );
    assert.equal(code, 1);
    const out = JSON.parse(io.stdout);
    assert.ok(out.reasons.includes("forbidden"));
    assert.deepEqual(out.sensitive, ["ci_workflow"]);
    assert.deepEqual(out.checks, []);
  });
});

Deno.test("vouch verify: usage errors exit 2", async () => {
  const io = bufferIo();
  assert.equal(await runCli(["verify", "--verify", "true"], io), 2);
  assert.equal(await runCli(["verify", "--patch", "x", "--verify", "a", "--contract", "b"], io), 2);
  const notRepo = await Deno.makeTempDir();
  await Deno.writeTextFile(`${notRepo}/p`, "");
  assert.equal(
    await runCli(["verify", "--dir", notRepo, "--patch", `${notRepo}/p`, "--verify", "true"], io),
    2,
  );
  await Deno.remove(notRepo, { recursive: true });
});
