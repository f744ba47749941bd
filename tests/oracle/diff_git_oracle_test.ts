/**
 * Git oracle for the diff parser: real repositories, real `git diff` output,
 * and `git apply --numstat -z --summary` as the judge of what every file section
 * means. Needs git and `-A`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type DiffFile, parseGitDiff } from "../../kernel/diff/mod.ts";

const GIT_ENV = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z",
  GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z",
  LC_ALL: "C",
};
const IDENTITY = ["-c", "user.name=Oracle", "-c", "user.email=oracle@example.invalid"];

async function git(cwd: string, args: string[], stdin?: Uint8Array): Promise<Uint8Array> {
  const child = new Deno.Command("git", {
    args: [...IDENTITY, "-c", "core.quotepath=on", "-c", "core.autocrlf=false", ...args],
    cwd,
    env: GIT_ENV,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(stdin);
    await writer.close();
  }
  const out = await child.output();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return out.stdout;
}

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

const raw = (bytes: Uint8Array | null): string =>
  new TextDecoder().decode(bytes ?? new Uint8Array());

/** The `git apply --summary` lines git prints for one file (apply.c summary_patch_list). */
function summaryOf(file: DiffFile): string[] {
  const mode = (m: string | null) => (m ?? "").padStart(6, "0");
  // With -z, git apply --summary prints names unquoted.
  if (file.status === "added") {
    const m = file.newMode === null ? "" : `mode ${mode(file.newMode)} `;
    return [` create ${m}${raw(file.newPathBytes)}`];
  }
  if (file.status === "deleted") {
    const m = file.oldMode === null ? "" : `mode ${mode(file.oldMode)} `;
    return [` delete ${m}${raw(file.oldPathBytes)}`];
  }
  const modeChange = file.oldMode !== null && file.newMode !== null &&
    file.oldMode !== file.newMode;
  if (file.status === "renamed" || file.status === "copied") {
    const word = file.status === "renamed" ? "rename" : "copy";
    let o = raw(file.oldPathBytes);
    let n = raw(file.newPathBytes);
    let prefix = "";
    for (;;) {
      const so = o.indexOf("/");
      const sn = n.indexOf("/");
      if (so < 0 || sn < 0 || so !== sn || o.slice(0, so) !== n.slice(0, sn)) break;
      prefix += o.slice(0, so + 1);
      o = o.slice(so + 1);
      n = n.slice(sn + 1);
    }
    const line = prefix === ""
      ? ` ${word} ${o} => ${n} (${file.similarity}%)`
      : ` ${word} ${prefix}{${o} => ${n}} (${file.similarity}%)`;
    return modeChange ? [line, ` mode change ${file.oldMode} => ${file.newMode}`] : [line];
  }
  if (file.dissimilarity !== null) {
    const line = ` rewrite ${raw(file.newPathBytes)} (${file.dissimilarity}%)`;
    return modeChange ? [line, ` mode change ${file.oldMode} => ${file.newMode}`] : [line];
  }
  return modeChange
    ? [` mode change ${file.oldMode} => ${file.newMode} ${raw(file.newPathBytes)}`]
    : [];
}

/** Asserts that the parser and `git apply --numstat -z --summary` agree on `patch`. */
async function assertAgreesWithGit(repo: string, patch: Uint8Array): Promise<readonly DiffFile[]> {
  const { files } = parseGitDiff(patch);
  const out = await git(repo, ["apply", "--numstat", "-z", "--summary", "-"], patch);
  // numstat records are NUL-terminated; the summary follows as LF-terminated lines.
  const records: string[] = [];
  let pos = 0;
  let summaryText = "";
  while (pos < out.length) {
    const nul = out.indexOf(0, pos);
    const chunk = out.subarray(pos, nul < 0 ? out.length : nul);
    if (nul < 0 || chunk.includes(10)) {
      summaryText = text(out.subarray(pos));
      break;
    }
    records.push(raw(chunk));
    pos = nul + 1;
  }
  const ours = files.map((f) => {
    const counts = f.binary ? "-\t-" : `${f.additions}\t${f.deletions}`;
    return `${counts}\t${raw(f.newPathBytes ?? f.oldPathBytes)}`;
  });
  assert.deepEqual(ours, records, "numstat disagrees with git apply");
  const summary = summaryText.split("\n").filter((l) => l !== "");
  assert.deepEqual(files.flatMap(summaryOf), summary, "summary disagrees with git apply");
  return files;
}

async function write(dir: string, name: string, content: string | Uint8Array): Promise<void> {
  const path = join(dir, name);
  await Deno.mkdir(join(path, ".."), { recursive: true });
  if (typeof content === "string") await Deno.writeTextFile(path, content);
  else await Deno.writeFile(path, content);
}

const numbered = (n: number, tag = "") =>
  Array.from({ length: n }, (_, i) => `line ${i + 1}${tag}\n`).join("");

async function buildRepo(): Promise<string> {
  const repo = await Deno.makeTempDir({ prefix: "vouch-diff-oracle-" });
  await git(repo, ["init", "-q", "-b", "main"]);
  await write(repo, "edit.txt", numbered(40));
  await write(repo, "delete me.txt", "gone\n");
  await write(repo, "rename/old name.txt", numbered(30));
  await write(repo, "src/moved.ts", numbered(25, " ts"));
  await write(repo, "copy-source.txt", numbered(60, " copy"));
  await write(repo, "mode.sh", "#!/bin/sh\necho hi\n");
  await write(repo, "mode-and-edit.sh", "#!/bin/sh\necho a\n");
  await write(repo, "bin/blob.bin", new Uint8Array([0, 1, 2, 3, 255, 0, 7, 8, 9]));
  await write(repo, "bin/gone.bin", new Uint8Array([0, 9, 9, 9]));
  await write(repo, "crlf.txt", "one\r\ntwo\r\nthree\r\n");
  await write(repo, "no-eol.txt", "a\nb");
  await write(repo, "tab\there.txt", "tab\n");
  await write(repo, 'quote"and\\back.txt', "quote\n");
  await write(repo, "naïve café.txt", "unicode\n");
  await write(repo, "typechange", "regular file\n");
  await write(repo, "rewrite.txt", numbered(20, " before"));
  await Deno.symlink("edit.txt", join(repo, "link-edit"));
  await Deno.symlink("mode.sh", join(repo, "link-gone"));
  await git(repo, ["add", "-A"]);
  await git(repo, ["commit", "-q", "-m", "base"]);

  const edit = numbered(40).replace("line 3\n", "line three\n").replace("line 30\n", "");
  await write(repo, "edit.txt", edit + "appended\n");
  await Deno.remove(join(repo, "delete me.txt"));
  await Deno.rename(join(repo, "rename/old name.txt"), join(repo, "rename/new name.txt"));
  await Deno.mkdir(join(repo, "lib/deep"), { recursive: true });
  await Deno.rename(join(repo, "src/moved.ts"), join(repo, "lib/deep/moved.ts"));
  await write(repo, "lib/deep/moved.ts", numbered(25, " ts") + "// moved\n");
  await write(repo, "copy-target.txt", numbered(60, " copy") + "extra\n");
  await write(repo, "copy-source.txt", numbered(60, " copy").replace("line 1 copy\n", ""));
  await Deno.chmod(join(repo, "mode.sh"), 0o755);
  await write(repo, "mode-and-edit.sh", "#!/bin/sh\necho b\n");
  await Deno.chmod(join(repo, "mode-and-edit.sh"), 0o755);
  await write(repo, "bin/blob.bin", new Uint8Array([0, 1, 2, 3, 254, 0, 7, 8, 9, 10]));
  await Deno.remove(join(repo, "bin/gone.bin"));
  await write(repo, "bin/new.bin", new Uint8Array(Array.from({ length: 300 }, (_, i) => i % 7)));
  await write(repo, "crlf.txt", "one\r\n2\r\nthree\r\nfour");
  await write(repo, "no-eol.txt", "a\nb\nc");
  await write(repo, "tab\there.txt", "tab\nmore\n");
  await write(repo, 'quote"and\\back.txt', "quote\nmore\n");
  await write(repo, "naïve café.txt", "unicode\nmore\n");
  await write(repo, "new dir/with space/new file.txt", "fresh\n");
  await write(repo, "empty-new.txt", "");
  await write(repo, "日本語.md", "# 見出し\n");
  await Deno.remove(join(repo, "typechange"));
  await Deno.symlink("edit.txt", join(repo, "typechange"));
  await Deno.remove(join(repo, "link-edit"));
  await Deno.symlink("no-eol.txt", join(repo, "link-edit"));
  await Deno.remove(join(repo, "link-gone"));
  await Deno.symlink("../outside", join(repo, "link-new"));
  await write(repo, "rewrite.txt", numbered(20, " after"));
  await git(repo, ["add", "-A"]);
  // A gitlink (submodule entry) without a real submodule.
  await git(repo, [
    "update-index",
    "--add",
    "--cacheinfo",
    "160000,1111111111111111111111111111111111111111,vendor/sub",
  ]);
  return repo;
}

Deno.test("git oracle: parser agrees with git apply on a real diff of every kind", async () => {
  const repo = await buildRepo();
  try {
    const patch = await git(repo, [
      "diff",
      "--cached",
      "--binary",
      "--full-index",
      "-M",
      "-C",
      "HEAD",
    ]);
    const files = await assertAgreesWithGit(repo, patch);
    const byNew = new Map(files.map((f) => [f.newPath ?? f.oldPath, f]));
    const statuses = new Set(files.map((f) => f.status));
    for (const s of ["added", "deleted", "modified", "renamed", "copied", "mode-only"]) {
      assert.ok(statuses.has(s as DiffFile["status"]), `fixture lacks a ${s} file`);
    }
    assert.equal(byNew.get("rename/new name.txt")?.oldPath, "rename/old name.txt");
    assert.equal(byNew.get("lib/deep/moved.ts")?.oldPath, "src/moved.ts");
    assert.equal(byNew.get("copy-target.txt")?.status, "copied");
    assert.equal(byNew.get("tab\there.txt")?.additions, 1);
    assert.equal(byNew.get('quote"and\\back.txt')?.status, "modified");
    assert.equal(byNew.get("naïve café.txt")?.additions, 1);
    assert.equal(byNew.get("日本語.md")?.status, "added");
    assert.equal(byNew.get("bin/new.bin")?.binaryKind, "literal");
    assert.equal(byNew.get("bin/blob.bin")?.binary, true);
    assert.equal(byNew.get("link-new")?.isSymlink, true);
    assert.equal(byNew.get("vendor/sub")?.isGitlink, true);
    assert.equal(byNew.get("mode.sh")?.status, "mode-only");
    assert.equal(byNew.get("new dir/with space/new file.txt")?.status, "added");
    assert.equal(byNew.get("empty-new.txt")?.hunks.length, 0);
    const crlf = byNew.get("crlf.txt")!;
    const added = crlf.hunks.flatMap((h) => h.lines()).filter((l) => l.kind === "added");
    assert.deepEqual(added.map((l) => text(l.content)), ["2\r", "four"]);
    assert.equal(added[1]!.noNewlineAtEnd, true);
    // A type change is two sections for one path: a deletion and a creation.
    const typechange = files.filter((f) => (f.newPath ?? f.oldPath) === "typechange");
    assert.deepEqual(typechange.map((f) => f.status), ["deleted", "added"]);
  } finally {
    await Deno.remove(repo, { recursive: true });
  }
});

Deno.test("git oracle: -B rewrites, default (non-binary) output and reversed diffs agree too", async () => {
  const repo = await buildRepo();
  try {
    for (
      const args of [
        ["diff", "--cached", "--binary", "--full-index", "-B", "-M", "HEAD"],
        ["diff", "--cached", "--binary", "--full-index", "-R", "-M", "-C", "HEAD"],
        ["diff", "--cached", "--binary", "--full-index", "--no-renames", "HEAD"],
      ]
    ) {
      const patch = await git(repo, args);
      await assertAgreesWithGit(repo, patch);
    }
    const plain = parseGitDiff(await git(repo, ["diff", "--cached", "-M", "HEAD"]));
    const bin = plain.files.find((f) => f.newPath === "bin/new.bin");
    assert.equal(bin?.binaryKind, "differ");
  } finally {
    await Deno.remove(repo, { recursive: true });
  }
});

Deno.test("git oracle: format-patch mails parse with their preambles and signatures", async () => {
  const repo = await buildRepo();
  try {
    await git(repo, ["commit", "-q", "-m", "change everything\n\n--- not a header\n+++ nor this"]);
    await write(repo, "edit.txt", "replaced\n");
    await git(repo, ["commit", "-q", "-a", "-m", "second"]);
    const mails = await git(repo, [
      "format-patch",
      "--stdout",
      "--binary",
      "--full-index",
      "-M",
      "-C",
      "HEAD~2",
    ]);
    const files = parseGitDiff(mails).files;
    const direct = parseGitDiff(
      await git(repo, [
        "log",
        "-p",
        "--reverse",
        "--format=",
        "--binary",
        "--full-index",
        "-M",
        "-C",
        "HEAD~2..HEAD",
      ]),
    ).files;
    const summary = (f: DiffFile) => [f.status, f.oldPath, f.newPath, f.additions, f.deletions];
    assert.deepEqual(files.map(summary), direct.map(summary));
    assert.ok(files.length > 20);
  } finally {
    await Deno.remove(repo, { recursive: true });
  }
});

Deno.test("git oracle: this repository's own history parses and matches git log --numstat", async () => {
  const root = join(import.meta.dirname!, "../..");
  const log = await git(root, ["log", "-p", "-M", "--full-index", "--max-count=300"]);
  const files = parseGitDiff(log).files;
  const numstat = await git(root, ["log", "--numstat", "-z", "-M", "--format=", "--max-count=300"]);
  // -z numstat: "a\td\tpath\0" or, for renames, "a\td\t\0old\0new\0".
  const expected: string[] = [];
  const parts = text(numstat).split("\0");
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!.replace(/^\n+/, "");
    if (part === "") continue;
    const [a, d] = part.split("\t", 2);
    const path = part.slice(a!.length + d!.length + 2);
    if (path === "") {
      expected.push(`${a}\t${d}\t${parts[i + 2]}`);
      i += 2;
    } else expected.push(`${a}\t${d}\t${path}`);
  }
  const ours = files.map((f) => {
    const counts = f.binary ? "-\t-" : `${f.additions}\t${f.deletions}`;
    return `${counts}\t${f.newPath ?? f.oldPath}`;
  });
  assert.ok(ours.length > 0);
  assert.deepEqual(ours, expected);
});

Deno.test("git oracle: plain GNU diff -ruN output agrees with git apply", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vouch-diff-gnu-" });
  try {
    await write(dir, "a/src/x.c", numbered(30));
    await write(dir, "b/src/x.c", numbered(30).replace("line 7\n", "line seven\n") + "tail\n");
    await write(dir, "a/gone.txt", "gone\n");
    await write(dir, "b/new dir/new.txt", "new\n");
    await write(dir, "a/with space.txt", "sp\n");
    await write(dir, "b/with space.txt", "sp2\n");
    await write(dir, "a/ünï.txt", "u\n");
    await write(dir, "b/ünï.txt", "u2\n");
    await write(dir, "a/no-eol.txt", "x");
    await write(dir, "b/no-eol.txt", "y");
    const out = await new Deno.Command("diff", {
      args: ["-ruN", "a", "b"],
      cwd: dir,
      env: { LC_ALL: "C", TZ: "America/New_York" },
      stdout: "piped",
    }).output();
    assert.equal(out.code, 1, "diff exits 1 when the trees differ");
    const files = await assertAgreesWithGit(dir, out.stdout);
    assert.deepEqual(
      files.map((f) => [f.headerKind, f.status, f.oldPath, f.newPath]),
      [
        ["unified", "deleted", "gone.txt", null],
        ["unified", "added", null, "new dir/new.txt"],
        ["unified", "modified", "no-eol.txt", "no-eol.txt"],
        ["unified", "modified", "src/x.c", "src/x.c"],
        ["unified", "modified", "with space.txt", "with space.txt"],
        ["unified", "modified", "ünï.txt", "ünï.txt"],
      ],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("git oracle: abbreviated object names of any length (`index 1..2 100644`) agree with git apply", async () => {
  const repo = await Deno.makeTempDir({ prefix: "vouch-diff-oracle-abbrev-" });
  try {
    await git(repo, ["init", "-q"]);
    await write(repo, "a.txt", "one\n");
    await write(repo, "b.txt", "x\n");
    await git(repo, ["add", "."]);
    await git(repo, ["commit", "-q", "-m", "base"]);
    const patch = new TextEncoder().encode(
      "diff --git a/a.txt b/a.txt\nindex 1..2 100644\n--- a/a.txt\n+++ b/a.txt\n" +
        "@@ -1 +1 @@\n-one\n+two\n" +
        "diff --git a/b.txt b/b.txt\nindex 5716ca5987cbf97d6bb54920bea6adde242d87e6..f\n" +
        "--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-x\n+y\n",
    );
    const files = await assertAgreesWithGit(repo, patch);
    assert.deepEqual(files.map((f) => [f.oldHash, f.newHash, f.newMode]), [
      ["1", "2", "100644"],
      ["5716ca5987cbf97d6bb54920bea6adde242d87e6", "f", null],
    ]);
    await git(repo, ["apply", "--index", "-"], patch); // and git really applies it
  } finally {
    await Deno.remove(repo, { recursive: true });
  }
});

Deno.test("git oracle: a format-patch mail whose message carries a pasted diff agrees with git apply and am", async () => {
  const repo = await Deno.makeTempDir({ prefix: "vouch-diff-oracle-pasted-" });
  try {
    await git(repo, ["init", "-q"]);
    await write(repo, "a.txt", "one\n");
    await write(repo, "b.txt", "x\n");
    await git(repo, ["add", "."]);
    await git(repo, ["commit", "-q", "-m", "base"]);
    await write(repo, "a.txt", "two\n");
    // The pasted diff ends the message: format-patch's `---` follows its last hunk directly.
    const message = "fix a\n\nThe reviewer asked for:\n\ndiff --git a/b.txt b/b.txt\n" +
      "--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-x\n+y\n";
    await git(repo, ["commit", "-q", "-a", "-m", message]);
    const mail = await git(repo, ["format-patch", "-1", "--stdout"]);
    assert.match(text(mail), /\n\+y\n---\n a\.txt \| 2 \+-\n/);
    const files = await assertAgreesWithGit(repo, mail);
    assert.deepEqual(files.map((f) => f.newPath), ["b.txt", "a.txt"]);
    // git am applies the pasted diff too (mailinfo ends the message at its first `diff -`).
    await git(repo, ["reset", "-q", "--hard", "HEAD~1"]);
    await git(repo, ["am", "-q"], mail);
    assert.equal(await Deno.readTextFile(join(repo, "b.txt")), "y\n");
    assert.equal(await Deno.readTextFile(join(repo, "a.txt")), "two\n");
  } finally {
    await Deno.remove(repo, { recursive: true });
  }
});
