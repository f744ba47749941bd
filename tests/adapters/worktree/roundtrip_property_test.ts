// Property: whatever a worker does to its worktree (writes, binary content,
// missing final newlines, deletions, mode changes, symlinks, new directories),
// the extracted diff applied with `git apply --index` to a fresh worktree of
// the base reproduces the worktree exactly (ignored files aside), and the
// strict parser's `changedPaths` of the diff lists exactly the paths and
// statuses git lists (what `vouch verify` relies on for a handed-over patch).
import assert from "node:assert/strict";
import { join } from "node:path";
import fc from "fast-check";
import { createRepo } from "../../golden/fixture_repos.ts";
import { changedPaths, parseGitDiff } from "../../../kernel/diff/mod.ts";
import {
  createCleanTree,
  createWorktree,
  extractDiff,
  removeWorktree,
} from "../../../adapters/worktree/mod.ts";

const PATHS = [
  "a.txt",
  "src/b.txt",
  "src/deep/c.bin",
  "new dir/ünï cödé.txt",
  "d.sh",
  "build/out.o",
];

type Op =
  | { op: "write"; path: string; bytes: Uint8Array }
  | { op: "delete"; path: string }
  | { op: "chmod"; path: string; exec: boolean }
  | { op: "symlink"; path: string; target: string };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constant("write" as const),
    path: fc.constantFrom(...PATHS),
    bytes: fc.oneof(
      fc.string({ maxLength: 60 }).map((s) => new TextEncoder().encode(s)),
      fc.uint8Array({ maxLength: 60 }),
    ),
  }),
  fc.record({ op: fc.constant("delete" as const), path: fc.constantFrom(...PATHS) }),
  fc.record({
    op: fc.constant("chmod" as const),
    path: fc.constantFrom(...PATHS),
    exec: fc.boolean(),
  }),
  fc.record({
    op: fc.constant("symlink" as const),
    path: fc.constantFrom("link", "src/link"),
    target: fc.constantFrom("a.txt", "../a.txt", "missing"),
  }),
);

async function apply(dir: string, op: Op): Promise<void> {
  const p = join(dir, op.path);
  const info = await Deno.lstat(p).catch(() => null);
  switch (op.op) {
    case "write":
      if (info?.isDirectory) return;
      if (info?.isSymlink) await Deno.remove(p);
      await Deno.mkdir(join(p, ".."), { recursive: true });
      await Deno.writeFile(p, op.bytes);
      return;
    case "delete":
      if (info && !info.isDirectory) await Deno.remove(p);
      return;
    case "chmod":
      if (info?.isFile) await Deno.chmod(p, op.exec ? 0o755 : 0o644);
      return;
    case "symlink":
      if (info?.isDirectory) return;
      if (info) await Deno.remove(p);
      await Deno.mkdir(join(p, ".."), { recursive: true });
      await Deno.symlink(op.target, p);
      return;
  }
}

async function listing(dir: string, rel = ""): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const e of Deno.readDir(join(dir, rel))) {
    const r = rel === "" ? e.name : `${rel}/${e.name}`;
    if (r === ".git" || r === "build") continue;
    const p = join(dir, r);
    const info = await Deno.lstat(p);
    if (info.isSymlink) out.set(r, `link:${await Deno.readLink(p)}`);
    else if (info.isDirectory) { for (const [k, v] of await listing(dir, r)) out.set(k, v); }
    else {
      const bytes = await Deno.readFile(p);
      out.set(r, `${(info.mode ?? 0) & 0o111 ? "x" : "-"}:${Array.from(bytes).join(",")}`);
    }
  }
  return out;
}

Deno.test("extractDiff -> createCleanTree reproduces the worktree exactly; changedPaths agrees with git (property)", async () => {
  const repo = await createRepo(
    {
      "a.txt": "one\ntwo\n",
      "src/b.txt": "bee",
      "src/deep/c.bin": "\u0000\u0001\u0002",
      "d.sh": "#!/bin/sh\n",
    },
    "true",
    { ignored: ["build/"] },
  );
  const root = await Deno.makeTempDir({ prefix: "vouch-rt-" });
  let n = 0;
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 8 }), async (ops) => {
        n += 1;
        const wt = await createWorktree({ repo: repo.dir, taskId: "rt", attempt: n, root });
        try {
          for (const op of ops) await apply(wt.path, op);
          const diff = await extractDiff(wt);
          // The strict parser names the same paths, with the same statuses, as git does.
          assert.deepEqual(changedPaths(parseGitDiff(diff.bytes)), diff.changed);
          const clean = await createCleanTree({
            repo: repo.dir,
            taskId: "rt",
            attempt: n,
            root,
            patch: diff.bytes,
          });
          try {
            assert.deepEqual(await listing(clean.worktree.path), await listing(wt.path));
          } finally {
            await removeWorktree(clean.worktree);
          }
        } finally {
          await removeWorktree(wt);
        }
      }),
      { numRuns: 10 },
    );
  } finally {
    await repo.cleanup();
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
});
