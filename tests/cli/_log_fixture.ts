// Builds a realistic log for the inspect/attest CLI tests: a repository dir
// with .git, the real kernel driven through a task (with receipts minted for
// each contract run), a minted VerifiedPatch and a transcript record.
import type { CliIo } from "../../cli/command.ts";
import { loadOrCreateMacKey, type MacKey } from "../../adapters/keys/mod.ts";
import {
  EventLog,
  GENESIS_HASH,
  LOG_KINDS,
  type LogHead,
  readLogFile,
} from "../../adapters/log/mod.ts";
import { frameRecord } from "../../adapters/log/record.ts";
import { receiptDigest, ReceiptRecorder, type ToolReceipt } from "../../adapters/receipts/mod.ts";
import { mintVerifiedPatch, recordVerifiedPatch } from "../../adapters/verified_patch/mod.ts";
import { driveKernel, type DriveScript } from "../adapters/audit/_kernel_driver.ts";

export interface LogFixture {
  readonly root: string;
  readonly repo: string;
  readonly state: string;
  readonly logPath: string;
  readonly key: MacKey;
  readonly diff: Uint8Array;
  cleanup(): Promise<void>;
}

export async function buildLogFixture(
  options: { receipts?: boolean; passRound?: number; scope?: "accept" | "reject" } = {},
): Promise<LogFixture> {
  const root = await Deno.makeTempDir({ prefix: "vouch-cli-" });
  const repo = `${root}/repo`;
  const state = `${root}/state`;
  await Deno.mkdir(`${repo}/.git`, { recursive: true });
  await Deno.mkdir(`${repo}/.vouch`, { recursive: true });
  const key = await loadOrCreateMacKey({ repoRoot: repo, env: { XDG_STATE_HOME: state } });
  const logPath = `${repo}/.vouch/events.jsonl`;
  const log = await EventLog.open(logPath);
  const recorder = ReceiptRecorder.resume(log, key);
  const receipts: ToolReceipt[] = [];
  await driveKernel(log, {
    task: "t1",
    passRound: options.passRound ?? 1,
    ...(options.scope !== undefined ? { scope: options.scope } : {}),
    ...(options.receipts === false
      ? {}
      : { onAction: mintCheckReceipts(recorder, "t1", receipts) }),
  });
  await log.append({
    task: "t1",
    kind: LOG_KINDS.transcript,
    body: {
      round: 1,
      stream: "stdout",
      text: "curl -H 'Authorization: Bearer sk-live-abcdef123456' ok",
    },
  });
  const diff = new TextEncoder().encode("diff --git a/a.ts b/a.ts\n");
  if (options.receipts !== false && options.passRound === undefined && options.scope !== "reject") {
    const last = receipts.at(-1)!;
    const vp = await mintVerifiedPatch(key, {
      patch: {
        kind: "unverified_patch",
        task: "t1",
        baseRevision: "0123456789abcdef0123456789abcdef01234567",
        diff,
        backend: "function:test",
      },
      contractDigest: "sha256:" + "c".repeat(64),
      checks: [{ id: "unit", outcome: "pass", receipt: receiptDigest(last) }],
      receipts: [last],
      passedAt: 1_700_000_020_000,
      sandboxProfile: "bwrap",
      logAnchor: await log.anchor(),
    });
    await recordVerifiedPatch(log, vp);
  }
  await log.close();
  return {
    root,
    repo,
    state,
    logPath,
    key,
    diff,
    cleanup: () => Deno.remove(root, { recursive: true }),
  };
}

/**
 * A `driveKernel` onAction that mints one receipt per check of each contract
 * run, sealing the outcome it was judged to have (as the clean verifier does),
 * and names them in the result event.
 */
export function mintCheckReceipts(
  recorder: ReceiptRecorder,
  task: string,
  into: ToolReceipt[] = [],
): NonNullable<DriveScript["onAction"]> {
  const zero = { digest: "sha256:" + "0".repeat(64), bytes: 0 };
  return async (action, outcomes) => {
    if (action.kind !== "run_contract") return;
    const named: Record<string, string[]> = {};
    for (const [id, outcome] of Object.entries(outcomes)) {
      const receipt = await recorder.record({
        task,
        tool: `${action.phase}:${id}`,
        argv: ["deno", "test"],
        cwd: `/tmp/wt-${task}`,
        sandboxProfile: "bwrap",
        envNames: ["PATH", "HOME"],
        startedAt: 1_700_000_000_000,
        endedAt: 1_700_000_001_250,
        exit: { code: outcome === "pass" ? 0 : 1, signal: null, timedOut: false },
        stdout: zero,
        stderr: zero,
        outcome,
      });
      into.push(receipt);
      named[id] = [receiptDigest(receipt)];
    }
    return named;
  };
}

export function bufferIo(): { io: CliIo; readonly out: string; readonly err: string } {
  let out = "";
  let err = "";
  return {
    io: {
      out: (t: string) => void (out += t),
      err: (t: string) => void (err += t),
      isTerminal: false,
    },
    get out() {
      return out;
    },
    get err() {
      return err;
    },
  };
}

/** Rewrites a log file record by record (recomputing every hash), like a forger. */
export async function rewriteLog(
  path: string,
  change: (kind: string, body: unknown, seq: number) => unknown,
): Promise<void> {
  const read = await readLogFile(path);
  let head: LogHead = { seq: 0, hash: GENESIS_HASH };
  let text = "";
  for (const r of read.records) {
    const f = frameRecord(
      head,
      { task: r.task, kind: r.kind, body: change(r.kind, r.body, r.seq) },
      r.ts,
    );
    head = f.record;
    text += f.line + "\n";
  }
  await Deno.writeTextFile(path, text);
}
