/**
 * Diff parser throughput: vouch (TS scanner), vouch (WASM scanner), jsdiff
 * `parsePatch`, `parse-diff`, `gitdiff-parser` and `git apply --numstat` (C, as
 * a process) on one >= 20 MB real multi-file `git log -p`, and on thousands of
 * small real patches.
 *
 * The corpus is real history built at bench time: successive published
 * versions of the `typescript` npm package (fetched with `npm pack`) are
 * committed to a temporary git repository, plus one commit with renames,
 * copies, quoted/spaced/non-ASCII names, binaries and a symlink. It is cached in
 * `$VOUCH_BENCH_CACHE` (default: `<tmp>/vouch-bench-diff`). MB/s = size / time
 * per iteration; the sizes are printed first, with a correctness table that
 * compares every parser with `git log --numstat`.
 *
 * @module
 */
import { parsePatch } from "diff";
import parseDiff from "parse-diff";
import * as gitdiffModule from "gitdiff-parser";
import type { File as GitdiffFile } from "gitdiff-parser";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { parseGitDiff } from "../kernel/diff/mod.ts";
import { createWasmDiffScanner } from "../wasm/mod.ts";
import { type BudgetSpec, interleavedMs, type Timed } from "./_budget.ts";

const VERSIONS = ["5.0.4", "5.1.6", "5.2.2"];
const CACHE = Deno.env.get("VOUCH_BENCH_CACHE") ?? join(tmpdir(), "vouch-bench-diff");
const GIT_ENV = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z",
  GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z",
};

async function run(cmd: string, args: string[], cwd: string, stdin?: Uint8Array) {
  const child = new Deno.Command(cmd, {
    args,
    cwd,
    env: GIT_ENV,
    stdin: stdin ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin) {
    const w = child.stdin.getWriter();
    await w.write(stdin);
    await w.close();
  }
  const out = await child.output();
  if (!out.success) {
    throw new Error(`Cannot run ${cmd} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return out.stdout;
}

const git = (cwd: string, ...args: string[]) =>
  run("git", ["-c", "user.name=Bench", "-c", "user.email=bench@example.invalid", ...args], cwd);

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Builds (once) the corpus repository and returns the big diff and the mail series. */
async function corpus(): Promise<
  { big: Uint8Array; mails: Uint8Array; numstat: Uint8Array; mailNumstat: Uint8Array }
> {
  const repo = join(CACHE, "repo");
  const done = join(CACHE, "done-v2");
  if (!(await exists(done))) {
    await Deno.remove(CACHE, { recursive: true }).catch(() => {});
    await Deno.mkdir(repo, { recursive: true });
    await git(repo, "init", "-q", "-b", "main");
    for (const version of VERSIONS) {
      const tgz = new TextDecoder().decode(
        await run("npm", ["pack", `typescript@${version}`, "--silent"], CACHE),
      ).trim();
      await Deno.remove(join(repo, "package"), { recursive: true }).catch(() => {});
      await run("tar", ["xzf", join(CACHE, tgz), "-C", repo], CACHE);
      await git(repo, "add", "-A");
      await git(repo, "commit", "-q", "-m", `typescript ${version}`);
    }
    // One commit with every awkward shape git emits.
    const lib = join(repo, "package/lib");
    await Deno.rename(join(lib, "tsc.js"), join(lib, "tsc renamed.js"));
    await Deno.copyFile(join(lib, "tsserver.js"), join(lib, "tsserver copy.js"));
    await Deno.writeTextFile(join(lib, "tsserver.js"), "// rewritten\n", { append: true });
    await Deno.writeTextFile(join(repo, "package/tab\tname.txt"), "tab\n");
    await Deno.writeTextFile(join(repo, 'package/quote"d\\name.txt'), "quote\n");
    await Deno.writeTextFile(join(repo, "package/ünïcödé 名前.txt"), "unicode\n");
    await Deno.writeFile(
      join(repo, "package/blob.bin"),
      Uint8Array.from({ length: 5000 }, (_, i) => (i * 7919) % 251),
    );
    await Deno.symlink("lib", join(repo, "package/lib-link"));
    await Deno.chmod(join(repo, "package/package.json"), 0o755);
    await git(repo, "add", "-A");
    await git(repo, "commit", "-q", "-m", "odd shapes");
    await Deno.writeTextFile(done, "ok\n");
  }
  const range = `HEAD~${VERSIONS.length}..HEAD`;
  const flags = ["-c", "core.quotepath=on"];
  const big = await git(repo, ...flags, "log", "-p", "--binary", "--full-index", "-M", "-C", range);
  const mails = await git(
    repo,
    ...flags,
    "format-patch",
    "--stdout",
    "--binary",
    "--full-index",
    "-M",
    "-C",
    range,
  );
  const numstat = await git(repo, "log", "--numstat", "-z", "-M", "-C", "--format=", range);
  const mailNumstat = await git(
    repo,
    "log",
    "--reverse",
    "--numstat",
    "-z",
    "-M",
    "-C",
    "--format=",
    range,
  );
  return { big, mails, numstat, mailNumstat };
}

const { big, mails, numstat, mailNumstat } = await corpus().catch((error) => {
  throw new Error(
    `Cannot build the diff bench corpus in ${CACHE} (needs git, tar and the npm registry): ${
      (error as Error).message
    }`,
  );
});
const bigText = new TextDecoder().decode(big);
const mailText = new TextDecoder().decode(mails);

/** Thousands of small real patches: every hunk of the big diff as its own one-hunk patch. */
function smallPatches(): { bytes: Uint8Array[]; texts: string[]; total: number } {
  const out: string[] = [];
  for (const file of parseGitDiff(big).files) {
    if (file.hunks.length === 0 || file.oldPath === null || file.oldPath !== file.newPath) continue;
    for (const hunk of file.hunks) {
      const header =
        `diff --git a/${file.oldPath} b/${file.newPath}\nindex ${file.oldHash}..${file.newHash} ${file.newMode}\n--- a/${file.oldPath}\n+++ b/${file.newPath}\n`;
      if (/[\t"\\\x80-\uffff ]/.test(file.newPath + file.oldPath)) continue;
      const body = bigText.slice(0, 0) + new TextDecoder().decode(big.subarray(
        big.lastIndexOf(0x0a, hunk.bodyStart - 2) + 1,
        hunk.bodyEnd,
      ));
      out.push(header + body);
      if (out.length >= 3000) break;
    }
    if (out.length >= 3000) break;
  }
  const bytes = out.map((t) => new TextEncoder().encode(t));
  return { bytes, texts: out, total: bytes.reduce((n, b) => n + b.length, 0) };
}
const small = smallPatches();
const wasm = createWasmDiffScanner();
// gitdiff-parser's .d.ts declares its default export as an object literal; type it here.
const gitdiffParser = (gitdiffModule as unknown as {
  default: { parse(source: string): GitdiffFile[] };
}).default;

// ---- correctness table (printed once) --------------------------------------

interface Seen {
  path: string;
  additions: number;
  deletions: number;
}

function gitNumstat(raw: Uint8Array): Seen[] {
  const out: Seen[] = [];
  const parts = new TextDecoder().decode(raw).split("\0");
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!.replace(/^\n+/, "");
    if (part === "") continue;
    const [a, d] = part.split("\t", 2);
    const path = part.slice(a!.length + d!.length + 2);
    let name = path!;
    if (path === "") {
      name = parts[i + 2]!;
      i += 2;
    }
    out.push({
      path: name,
      additions: a === "-" ? -1 : Number(a),
      deletions: d === "-" ? -1 : Number(d),
    });
  }
  return out;
}

const stripAB = (p: string | undefined) => (p ?? "").replace(/^[ab]\//, "");

const PEERS: Record<string, (text: string, bytes: Uint8Array) => Seen[]> = {
  "vouch": (_t, b) =>
    parseGitDiff(b).files.map((f) => ({
      path: f.newPath ?? f.oldPath ?? "",
      additions: f.binary ? -1 : f.additions,
      deletions: f.binary ? -1 : f.deletions,
    })),
  "jsdiff parsePatch": (t) =>
    parsePatch(t).map((p) => {
      const lines = p.hunks.flatMap((h) => h.lines);
      const name = p.newFileName === "/dev/null" ? p.oldFileName : p.newFileName;
      return {
        path: stripAB(name),
        additions: lines.filter((l) => l.startsWith("+")).length,
        deletions: lines.filter((l) => l.startsWith("-")).length,
      };
    }),
  "parse-diff": (t) =>
    parseDiff(t).map((f) => ({
      path: (f.to === "/dev/null" ? f.from : f.to) ?? "",
      additions: f.additions,
      deletions: f.deletions,
    })),
  "gitdiff-parser": (t) =>
    gitdiffParser.parse(t).map((f) => {
      const changes = f.hunks.flatMap((h) => h.changes);
      return {
        path: f.type === "delete" ? f.oldPath : f.newPath,
        additions: changes.filter((c) => c.type === "insert").length,
        deletions: changes.filter((c) => c.type === "delete").length,
      };
    }),
};

function agreement(name: string, text: string, bytes: Uint8Array, expected: Seen[]): string {
  let got: Seen[];
  try {
    got = PEERS[name]!(text, bytes);
  } catch (error) {
    return `throws (${(error as Error).message.slice(0, 60)})`;
  }
  let wrong = 0;
  let first = "";
  const n = Math.max(got.length, expected.length);
  for (let i = 0; i < n; i++) {
    const g = got[i];
    const e = expected[i];
    const same = g !== undefined && e !== undefined && g.path === e.path &&
      (e.additions === -1 || (g.additions === e.additions && g.deletions === e.deletions));
    if (!same) {
      wrong++;
      if (wrong <= 5) {
        const say = (x: Seen | undefined) =>
          x === undefined ? "-" : `${JSON.stringify(x.path)} +${x.additions} -${x.deletions}`;
        first += `\n      ${say(g)}  (git: ${say(e)})`;
      }
    }
  }
  return `${got.length} files, ${wrong} of ${expected.length} disagree with git${first}`;
}

const expected = gitNumstat(numstat);
const expectedMails = gitNumstat(mailNumstat);
console.log(
  `diff corpus: big git log -p ${(big.length / 1e6).toFixed(1)} MB (${expected.length} files), ` +
    `format-patch mails ${(mails.length / 1e6).toFixed(1)} MB, ` +
    `${small.bytes.length} small patches ${(small.total / 1e6).toFixed(2)} MB`,
);
for (const name of Object.keys(PEERS)) {
  console.log(
    `  ${name.padEnd(18)} log -p: ${agreement(name, bigText, big, expected)}; ` +
      `mails: ${agreement(name, mailText, mails, expectedMails)}`,
  );
}

// ---- benchmarks -----------------------------------------------------------

const BIG = `big git log -p (${(big.length / 1e6).toFixed(1)} MB)`;
Deno.bench({ group: BIG, name: "vouch parseGitDiff (TS scanner)", baseline: true }, () => {
  parseGitDiff(big);
});
Deno.bench({ group: BIG, name: "vouch parseGitDiff (WASM scanner)" }, () => {
  parseGitDiff(big, { scanner: wasm });
});
Deno.bench({ group: BIG, name: "jsdiff parsePatch" }, () => {
  parsePatch(bigText);
});
Deno.bench({ group: BIG, name: "parse-diff" }, () => {
  parseDiff(bigText);
});
Deno.bench({ group: BIG, name: "gitdiff-parser" }, () => {
  gitdiffParser.parse(bigText);
});
Deno.bench({ group: BIG, name: "git apply --numstat (C, process)" }, async () => {
  await run("git", ["apply", "--numstat", "-"], CACHE, big);
});

const SMALL = `${small.bytes.length} small patches (${(small.total / 1e6).toFixed(2)} MB)`;
Deno.bench({ group: SMALL, name: "vouch parseGitDiff (TS scanner)", baseline: true }, () => {
  for (const b of small.bytes) parseGitDiff(b);
});
Deno.bench({ group: SMALL, name: "vouch parseGitDiff (WASM scanner)" }, () => {
  for (const b of small.bytes) parseGitDiff(b, { scanner: wasm });
});
Deno.bench({ group: SMALL, name: "jsdiff parsePatch" }, () => {
  for (const t of small.texts) parsePatch(t);
});
Deno.bench({ group: SMALL, name: "parse-diff" }, () => {
  for (const t of small.texts) parseDiff(t);
});
Deno.bench({ group: SMALL, name: "gitdiff-parser" }, () => {
  for (const t of small.texts) gitdiffParser.parse(t);
});

// ------------------------------------------------------------------ budgets

const vouchBig: Timed = () => {
  parseGitDiff(big);
};
const vouchSmall: Timed = () => {
  for (const b of small.bytes) parseGitDiff(b);
};
const bigNote = `${(big.length / 1e6).toFixed(1)} MB git log -p`;
const smallNote = `${small.bytes.length} one-hunk patches, ${(small.total / 1e6).toFixed(2)} MB`;

function vsPeer(id: string, peer: string, fn: Timed, on: "big" | "small", bound: string) {
  return {
    id,
    measures: `vouch parseGitDiff (strict, TS scanner) on the ${
      on === "big" ? bigNote : smallNote
    }, ms`,
    peer,
    bound,
    measure: () =>
      interleavedMs(on === "big" ? vouchBig : vouchSmall, fn, {
        warmup: 1,
        rounds: 5,
        note: on === "big" ? bigNote : smallNote,
      }),
  };
}

/** Budgets checked by `deno task bench:check` (docs/benchmarks.md). */
export const budgets: readonly BudgetSpec[] = [
  vsPeer(
    "diff.vs_jsdiff",
    "jsdiff parsePatch on the same text",
    () => {
      parsePatch(bigText);
    },
    "big",
    "<= 0.5x",
  ),
  vsPeer(
    "diff.vs_parse_diff",
    "parse-diff on the same text",
    () => {
      parseDiff(bigText);
    },
    "big",
    "<= 0.5x",
  ),
  vsPeer(
    "diff.vs_gitdiff_parser",
    "gitdiff-parser on the same text",
    () => {
      gitdiffParser.parse(bigText);
    },
    "big",
    "<= 0.5x",
  ),
  vsPeer(
    "diff.vs_git_numstat",
    "git apply --numstat - (C, one process) on the same bytes",
    () => run("git", ["apply", "--numstat", "-"], CACHE, big),
    "big",
    "<= 1x",
  ),
  vsPeer(
    "diff.small.vs_jsdiff",
    "jsdiff parsePatch on the same patches",
    () => {
      for (const t of small.texts) parsePatch(t);
    },
    "small",
    "<= 1x",
  ),
];
