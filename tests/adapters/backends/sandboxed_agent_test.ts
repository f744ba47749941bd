// An agent run inside the bwrap sandbox: its edits inside the worktree land,
// its write into the user's checkout never reaches it (on top of the checkout
// snapshot that would detect it).
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRepo } from "../../golden/fixture_repos.ts";
import { codexBackend } from "../../../adapters/backends/mod.ts";
import { compareCheckoutSnapshots, snapshotCheckout } from "../../../adapters/git/mod.ts";
import { probeSandbox, selectSandbox } from "../../../adapters/host/sandbox_probe.ts";
import { createWorktree, extractDiff, removeWorktree } from "../../../adapters/worktree/mod.ts";

const BIN = fileURLToPath(new URL("../../fixtures/bin/", import.meta.url));
// The fake agent's script and its module live in this checkout, which may itself sit under /tmp:
// the sandbox's private /tmp would hide them, so they are bound read-only (as an installed agent
// in /usr would be visible).
const FIXTURES = fileURLToPath(new URL("../../fixtures/", import.meta.url));
const probe = await probeSandbox();
const skipReason = probe.bwrap.available ? null : `bwrap unavailable: ${probe.bwrap.reason}`;
if (skipReason !== null) console.log(`SKIP sandboxed agent test: ${skipReason}`);

Deno.test({
  name:
    "codex (fake) under bwrap: edits inside the worktree land, the escape write never reaches the checkout",
  ignore: skipReason !== null,
  fn: async () => {
    const repo = await createRepo({
      "src/math.js": "exports.add = (a, b) => a - b;\n",
      ".vouch-fake-agent.json": JSON.stringify({
        mode: "write-outside",
        edits: [{ path: "src/math.js", replace: ["a - b", "a + b"] }],
      }),
    }, "true");
    const root = await Deno.makeTempDir({ prefix: "vouch-sbx-root-" });
    try {
      const wt = await createWorktree({ repo: repo.dir, taskId: "sbx", attempt: 1, root });
      try {
        const before = await snapshotCheckout(repo.dir);
        const selected = await selectSandbox("bwrap", { worktree: wt.path, probe });
        const sandbox = selected.kind === "bwrap"
          ? { ...selected, readOnly: [...selected.readOnly, FIXTURES] }
          : selected;
        const events: string[] = [];
        const r = await codexBackend({ executable: join(BIN, "codex"), sandbox }).run({
          taskId: "sbx",
          attempt: 1,
          goal: "fix add",
          worktree: wt.path,
          allowedRoots: [],
          forbiddenPaths: [],
          maxSeconds: 30,
          maxOutputMb: 4,
        }, { signal: new AbortController().signal, emit: (e) => events.push(JSON.stringify(e)) });
        assert.equal(r.status, "ok", r.failure?.message);
        assert.deepEqual(compareCheckoutSnapshots(before, await snapshotCheckout(repo.dir)), []);
        assert.equal(
          await Deno.lstat(join(repo.dir, "ESCAPED_BY_AGENT.txt")).then(() => true, () => false),
          false,
        );
        // The agent tried: it believes it escaped (its write landed in the sandbox's own view), or,
        // as root where the sandbox's uid 0 is host uid 65534, the sandbox's root-made parents
        // refused it. Either way nothing reached the checkout.
        assert.ok(
          events.some((e) => e.includes("ESCAPED_BY_AGENT.txt") || /failed: EACCES/.test(e)),
          events.join("\n"),
        );
        assert.deepEqual((await extractDiff(wt)).changed.map((c) => c.path), ["src/math.js"]);
      } finally {
        await removeWorktree(wt);
      }
    } finally {
      await repo.cleanup();
      await Deno.remove(root, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name: "command backend under bwrap: the task file is readable inside the sandbox, read-only",
  ignore: skipReason !== null,
  fn: async () => {
    const { commandBackend } = await import("../../../adapters/backends/mod.ts");
    const repo = await createRepo({ "a.txt": "a\n" }, "true");
    const root = await Deno.makeTempDir({ prefix: "vouch-sbx-cmd-" });
    try {
      const wt = await createWorktree({ repo: repo.dir, taskId: "sbxc", attempt: 1, root });
      try {
        const selected = await selectSandbox("bwrap", { worktree: wt.path, probe });
        const sandbox = selected.kind === "bwrap"
          ? { ...selected, readOnly: [...selected.readOnly, FIXTURES] }
          : selected;
        const r = await commandBackend({
          argv: [
            "sh",
            "-c",
            'cp "$VOUCH_TASK_FILE" got.json; echo x >> "$VOUCH_TASK_FILE" && echo WROTE',
          ],
          sandbox,
        }).run({
          taskId: "sbxc",
          attempt: 1,
          goal: "g",
          worktree: wt.path,
          allowedRoots: [],
          forbiddenPaths: [],
          maxSeconds: 30,
          maxOutputMb: 4,
        }, { signal: new AbortController().signal, emit: () => {} });
        assert.equal(
          JSON.parse(await Deno.readTextFile(join(wt.path, "got.json"))).task_id,
          "sbxc",
        );
        assert.notEqual(r.summary, "WROTE");
      } finally {
        await removeWorktree(wt);
      }
    } finally {
      await repo.cleanup();
      await Deno.remove(root, { recursive: true }).catch(() => {});
    }
  },
});
