/**
 * The walks of `_tree_walk.ts` against the `find` runs they replace: the
 * write budget's listing (`find -xdev -type f -newerct`) and the hand-over
 * (`find ... -exec chown -h`), on the same trees.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import {
  changedSince,
  forgetTree,
  handOverTree,
  isLargeTree,
  WALK_ENTRIES,
} from "../../../adapters/process/_tree_walk.ts";
import { findTime } from "../../../adapters/process/_tree_budget.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What `find` lists: allocated bytes and the largest size of the files changed after `since`. */
function findListing(tree: string, sinceMs: number): { written: number; largest: number } {
  const out = execFileSync("find", [
    tree,
    "-xdev",
    "-type",
    "f",
    "-newerct",
    findTime(sinceMs),
    "-printf",
    "%b %s\\n",
  ], { encoding: "utf8" });
  let written = 0;
  let largest = 0;
  for (const line of out.trim().split("\n").filter(Boolean)) {
    const [b, s] = line.split(" ").map(Number);
    written += b! * 512;
    largest = Math.max(largest, s!);
  }
  return { written, largest };
}

/** Waits until the clock is `ms` into a second (so a test's changes share or cross a second). */
async function atMsOfSecond(ms: number): Promise<void> {
  const now = Date.now() % 1000;
  await sleep((ms - now + 1000) % 1000);
}

Deno.test("changedSince: the files written after the start, as find lists them", async () => {
  const dir = mkdtempSync(join(tmpdir(), "vouch-walk-"));
  try {
    mkdirSync(join(dir, "a/b"), { recursive: true });
    writeFileSync(join(dir, "old"), new Uint8Array(10_000).fill(1));
    symlinkSync("/etc/passwd", join(dir, "link"));
    // The start in a later second than anything before it: every file decided by its ctime.
    await sleep(1100);
    const since = Date.now() + 1;
    // Past the start by more than the kernel's coarse clock lags (a jiffy).
    await sleep(30);
    writeFileSync(join(dir, "a/b/new"), new Uint8Array(70_000).fill(2));
    writeFileSync(join(dir, "a/small"), "x");
    const c = changedSince(dir, since);
    const f = findListing(dir, since);
    equal(c.undecided, false);
    deepEqual({ written: c.writtenBytes, largest: c.largestFile }, f);
    equal(c.largestFile, 70_000);
    // Nothing after a later start.
    await sleep(1100);
    deepEqual(changedSince(dir, Date.now() + 1), {
      writtenBytes: 0,
      largestFile: 0,
      undecided: false,
      entries: 7,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Deno.test("changedSince: a change in the start's second with an older mtime is undecided", async () => {
  const dir = mkdtempSync(join(tmpdir(), "vouch-walk-"));
  try {
    writeFileSync(join(dir, "before"), new Uint8Array(4096).fill(1));
    writeFileSync(join(dir, "hidden"), "");
    await sleep(1100);
    // vouch's own change (a chmod, as a hand-over's chown) just before the start, in its second.
    await atMsOfSecond(100);
    chmodSync(join(dir, "before"), 0o600);
    const since = Date.now() + 1;
    let c = changedSince(dir, since);
    equal(c.undecided, true);
    // The child's write, its mtime set back: undecided while its ctime is in the start's second,
    // counted once it is not.
    await sleep(30);
    writeFileSync(join(dir, "hidden"), new Uint8Array(50_000).fill(3));
    utimesSync(join(dir, "hidden"), 1, 1);
    renameSync(join(dir, "hidden"), join(dir, "moved"));
    c = changedSince(dir, since);
    if (Math.floor(lstatSync(join(dir, "moved")).ctimeMs / 1000) === Math.floor(since / 1000)) {
      equal(c.undecided, true);
    }
    // A start one second earlier: both files are past it by their ctime's second, decided.
    c = changedSince(dir, since - 1000);
    equal(c.undecided, false);
    deepEqual({ written: c.writtenBytes, largest: c.largestFile }, findListing(dir, since - 1000));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Deno.test("changedSince and handOverTree: past the bound, find's (and remembered)", () => {
  const dir = mkdtempSync(join(tmpdir(), "vouch-walk-"));
  try {
    for (let i = 0; i <= WALK_ENTRIES; i++) writeFileSync(join(dir, `f${i}`), "");
    equal(changedSince(dir, Date.now() + 1).undecided, true);
    ok(isLargeTree(dir));
    const uid = process.getuid?.() ?? 0;
    equal(handOverTree(dir, uid), null);
    forgetTree(dir);
    equal(isLargeTree(dir), false);
    // (A start in a later second than the files' ctime: decided.)
    equal(changedSince(dir, Date.now() + 2000, WALK_ENTRIES + 10).undecided, false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Deno.test({
  name: "handOverTree: as root, what find -exec chown -h would change (links themselves)",
  ignore: process.getuid?.() !== 0,
  fn: () => {
    const dir = mkdtempSync(join(tmpdir(), "vouch-walk-"));
    try {
      mkdirSync(join(dir, "d/e"), { recursive: true });
      writeFileSync(join(dir, "d/e/f"), "x");
      writeFileSync(join(dir, "g"), "y");
      symlinkSync("/etc/passwd", join(dir, "d/link"));
      execFileSync("chown", ["-h", "65534:0", join(dir, "g")]);
      // The whole tree but for g's group, and the symlink's target never.
      equal(handOverTree(dir, 65534), 6);
      for (const p of ["", "d", "d/e", "d/e/f", "g", "d/link"]) {
        const st = lstatSync(join(dir, p));
        deepEqual([st.uid, st.gid], [65534, 65534], p);
      }
      equal(lstatSync("/etc/passwd").uid, 0);
      equal(handOverTree(dir, 65534), 0);
      const left = execFileSync("find", [
        dir,
        "-xdev",
        "(",
        "!",
        "-uid",
        "65534",
        "-o",
        "!",
        "-gid",
        "65534",
        ")",
      ], {
        encoding: "utf8",
      });
      equal(left, "");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
});
