// Red team: an ACP agent aims vouch's file service and its JSON-RPC reader at
// unbounded inputs. A read of a FIFO once blocked ~40 s; a read of a 1.5 GB
// sparse file took vouch to 1.6 GB RSS (the cap applied after reading); one
// 100 MiB JSON-RPC line took 540-822 MiB and outlived the time limit. Now:
// reads take regular files only, bounded by fstat before a byte is read, and
// a JSON-RPC message past 16 MiB ends the agent with a protocol error at once.
// (Memory is measured as the growth of this process's RSS: the backend runs
// in it, as in the CLI.)
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, truncateSync, writeFileSync } from "node:fs";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { acpBackend } from "../../../adapters/backends/acp_backend.ts";
import type { AgentTask, BackendResult } from "../../../adapters/backends/types.ts";
import { NODE } from "../../golden/cli_harness.ts";

const AGENT = fileURLToPath(new URL("../../fixtures/acp_agent.mjs", import.meta.url));
const MiB = 1024 * 1024;

async function play(
  mode: string,
  env: Record<string, string>,
  maxSeconds: number,
  setup: (wt: string) => void = () => {},
): Promise<{ result: BackendResult; notes: Map<string, unknown>; rssGrowth: number }> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-acp-limits-" }));
  try {
    const wt = join(root, "wt");
    mkdirSync(wt);
    setup(wt);
    const report = join(root, "report.jsonl");
    const task: AgentTask = {
      taskId: "t-limits",
      attempt: 0,
      goal: "limits",
      worktree: wt,
      allowedRoots: ["**"],
      forbiddenPaths: [],
      maxSeconds,
      maxOutputMb: 10,
    };
    let peak = process.memoryUsage().rss;
    const before = peak;
    const sampler = setInterval(() => peak = Math.max(peak, process.memoryUsage().rss), 20);
    let result: BackendResult;
    try {
      result = await acpBackend({
        argv: [NODE!, AGENT],
        env: { VOUCH_ACP_MODE: mode, VOUCH_ACP_REPORT: report, ...env },
        cancelGraceMs: 500,
      }).run(task, { signal: new AbortController().signal, emit: () => {} });
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage().rss);
    const notes = new Map<string, unknown>();
    try {
      for (const l of readFileSync(report, "utf8").trim().split("\n")) {
        const n = JSON.parse(l);
        notes.set(n.what, n.value);
      }
    } catch { /* no report */ }
    return { result, notes, rssGrowth: peak - before };
  } finally {
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
}

Deno.test({
  name:
    "red team: fs/read_text_file of a FIFO, a 1.5 GB sparse file and a directory is refused before reading",
  ignore: NODE === null,
  fn: async () => {
    const { result, notes, rssGrowth } = await play(
      "reads",
      {
        VOUCH_ACP_READS: JSON.stringify(["fifo", "sparse.bin", "dir", "small.txt", "missing.txt"]),
      },
      60,
      (wt) => {
        execFileSync("mkfifo", [join(wt, "fifo")]);
        writeFileSync(join(wt, "sparse.bin"), "");
        truncateSync(join(wt, "sparse.bin"), 1536 * MiB);
        mkdirSync(join(wt, "dir"));
        writeFileSync(join(wt, "small.txt"), "fine\n");
      },
    );
    // The turn ended on its own (a blocked read would have run into the time limit).
    assert.equal(result.status, "ok", JSON.stringify(result.failure));
    const message = (what: string) => (notes.get(what) as { message?: string }).message ?? "";
    assert.match(
      message("read fifo"),
      /refused by vouch: refused \(not_regular\): fifo is not a regular file/,
    );
    assert.match(
      message("read sparse.bin"),
      /refused by vouch: refused \(too_large\): sparse.bin has 1610612736 bytes/,
    );
    assert.match(message("read dir"), /refused by vouch: refused \(not_regular\)/);
    assert.deepEqual(notes.get("read small.txt"), { length: 5 });
    // A file that is not there is ACP's "resource not found", not a refusal.
    assert.equal((notes.get("read missing.txt") as { code?: number }).code, -32002);
    console.log(`reads: RSS grew ${Math.round(rssGrowth / MiB)} MiB`);
    assert.ok(rssGrowth < 256 * MiB, `RSS grew ${Math.round(rssGrowth / MiB)} MiB`);
  },
});

Deno.test({
  name: "red team: one 100 MiB JSON-RPC line ends the agent with a protocol error, memory bounded",
  ignore: NODE === null,
  fn: async () => {
    const { result, rssGrowth } = await play("bigline", { VOUCH_ACP_BIGLINE_MB: "100" }, 300);
    assert.equal(result.status, "error", JSON.stringify(result));
    assert.equal(result.failure?.code, "protocol");
    assert.match(
      result.failure!.message,
      /^acp: the agent sent a JSON-RPC message longer than 16 MiB; vouch ended it/,
    );
    console.log(`bigline: RSS grew ${Math.round(rssGrowth / MiB)} MiB`);
    assert.ok(rssGrowth < 256 * MiB, `RSS grew ${Math.round(rssGrowth / MiB)} MiB`);
  },
});
