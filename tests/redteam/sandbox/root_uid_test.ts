/**
 * Red team, issue #20 §2, as root: a check's root must not be host root for
 * the files it can reach. Before, bwrap started by root mapped the sandbox's
 * uid 0 to host uid 0, so a check read every root-only file the sandbox
 * showed (a 0600 file in a declared read-only dir, root-only files of a
 * toolchain or `/sys`), signalled bwrap's own init, and `RLIMIT_NPROC` never
 * applied. Now its uid 0 is host uid 65534 (`adapters/sandbox/_user_map.ts`),
 * and its own tree is still its own to write (handed to that uid first), with
 * git working in it.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { runProcess } from "../../../adapters/process/run.ts";
import { bwrapProfile } from "../../../adapters/sandbox/bwrap.ts";
import { isRoot, probe, skipReason } from "./_cli.ts";

Deno.test({
  name: "root: a check runs as host uid 65534: root's 0600 file unreadable, bwrap's init " +
    "unsignalled, its own (root-made) tree writable, git works in it",
  ignore: skipReason !== null || !isRoot,
  fn: async () => {
    const tree = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-rt-uid-" }));
    const ro = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-rt-uid-ro-" }));
    try {
      await Deno.writeTextFile(`${ro}/secret`, "root-only\n", { mode: 0o600 });
      await Deno.writeTextFile(`${ro}/public`, "readable\n", { mode: 0o644 });
      await Deno.chmod(ro, 0o755);
      await Deno.writeTextFile(`${tree}/src.txt`, "base\n", { mode: 0o644 });
      const git = (...args: string[]) =>
        execFileSync("git", ["-c", "user.email=e@x", "-c", "user.name=e", ...args], {
          cwd: tree,
          stdio: "ignore",
        });
      git("init", "-q");
      git("add", ".");
      git("commit", "-qm", "base");
      const sandbox = bwrapProfile({
        worktree: tree,
        bwrapPath: probe.bwrap.path!,
        declaredReadOnly: [ro],
      });
      assert.equal(sandbox.userMap?.uid, 65534);
      const r = await runProcess({
        shell: [
          `cat '${ro}/secret' && echo READ-ROOT-SECRET`,
          `cat '${ro}/public'`,
          "kill -0 1 2>/dev/null && echo SIGNALLED-INIT || echo init-refused",
          "echo more >> src.txt && echo wrote-src",
          "mkdir -p made/deeper && echo new > made/deeper/new.txt && echo made-new",
          "git status --porcelain >/dev/null && echo git-ok",
          "head -1 /proc/self/uid_map",
        ].join("; "),
        cwd: tree,
        sandbox,
        timeoutMs: 60_000,
      });
      const out = r.stdout.head + r.stderr.head;
      assert.doesNotMatch(out, /READ-ROOT-SECRET|root-only/, out);
      assert.match(out, /secret: Permission denied/);
      assert.match(out, /readable/);
      assert.match(out, /init-refused/);
      assert.match(out, /wrote-src/);
      assert.match(out, /made-new/);
      assert.match(out, /git-ok/);
      assert.match(out, /^\s*0\s+65534\s+1$/m);
      assert.equal((await Deno.stat(`${tree}/made/deeper/new.txt`)).uid, 65534);
      assert.equal(await Deno.readTextFile(`${tree}/src.txt`), "base\nmore\n");
      // vouch's own (hardened) git still reads the handed-over tree.
      assert.match(
        execFileSync("git", ["-c", "safe.directory=*", "status", "--porcelain"], {
          cwd: tree,
          encoding: "utf8",
        }),
        /src\.txt/,
      );
    } finally {
      await Deno.remove(tree, { recursive: true });
      await Deno.remove(ro, { recursive: true });
    }
  },
});
