/**
 * The `run_backend` handler: one backend round in the task's worktree. The
 * backend's report is a claim; only its accounting and its stop reason reach
 * the kernel (`backend_finished`), and writes outside the worktree are
 * recorded to be judged with the patch.
 *
 * @module
 */
import { mkdir } from "node:fs/promises";
import type { RunBackendAction } from "../../kernel/lifecycle/actions.ts";
import { maskSecrets } from "../backends/transcript.ts";
import { costUnitsOfUsage } from "../backends/result.ts";
import { applyPatch } from "../git/apply_patch.ts";
import { LOG_KINDS } from "../log/kinds.ts";
import {
  diffOutsideSnapshots,
  type OutsideScope,
  snapshotOutside,
} from "../verification/outside_writes.ts";
import { worktreeGitArgs } from "../worktree/extract_diff.ts";
import type { Worktree } from "../worktree/worktree.ts";
import { writeJson } from "./_artefacts.ts";
import type { RoundState, TaskRun } from "./_task_run.ts";
import { roundPrompt } from "./round_prompt.ts";

/** The user's checkout (judged by content) and the worktree's container minus the worktree. */
function outsideScope(run: TaskRun): OutsideScope {
  const trees = [];
  const wt = run.worktree;
  if (wt !== null) {
    const rel = wt.path.startsWith(wt.container + "/")
      ? wt.path.slice(wt.container.length + 1)
      : "";
    trees.push({ root: wt.container, skip: rel === "" ? [] : [rel] });
  }
  return { checkout: run.o.repo, trees };
}

/** Applies patch bytes a backend handed over as text, with plain `git apply` (no --unsafe-paths). */
async function applyPatchText(wt: Worktree, patch: Uint8Array): Promise<boolean> {
  const tree = { cwd: wt.path, gitArgs: worktreeGitArgs(wt), timeoutMs: 60_000 };
  return (await applyPatch(tree, patch, "worktree")).ok;
}

/** Runs one backend round and reports its end to the kernel. */
export async function runBackendRound(run: TaskRun, action: RunBackendAction): Promise<void> {
  const o = run.o;
  const round: RoundState = {
    round: action.round + 1,
    backend: null,
    handed: null,
    patch: null,
    diff: null,
    patchDigest: null,
    files: [],
    reasons: [],
    details: [],
    checks: [],
    run: null,
    verdict: "not_verified",
  };
  run.rounds.push(round);
  run.progress("backend", o.backend.id);
  const previous = run.rounds.at(-2);
  const feedback = previous === undefined ? undefined : roundPrompt(previous, run.baseline);
  const controller = new AbortController();
  run.running = { effectId: action.effectId, controller };
  const watch = o.watchOutside ?? true;
  const before = watch ? await snapshotOutside(outsideScope(run)) : null;
  await run.feed({ kind: "backend_started", taskId: o.taskId, effectId: action.effectId });
  const remainingMs = Math.max(1, action.deadlineAt - run.now());
  const limitMs = Math.min(remainingMs, o.backendTimeoutMs ?? remainingMs);
  // The wall-time budget is enforced through the kernel: a timer tick at the deadline.
  let deadlineTimer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"deadline">((resolve) => {
    deadlineTimer = setTimeout(() => resolve("deadline"), remainingMs + 5);
  });
  const transcriptDir = `${o.artefactsDir}/round-${round.round}`;
  await mkdir(transcriptDir, { recursive: true });
  const work = o.backend.run({
    taskId: o.taskId,
    attempt: round.round,
    goal: o.goal,
    ...(feedback !== undefined ? { feedback } : {}),
    worktree: action.worktree,
    allowedRoots: o.rules.allow.length > 0 ? o.rules.allow : ["**"],
    forbiddenPaths: [...o.rules.forbid, ...o.rules.protect],
    maxSeconds: Math.max(1, Math.floor(limitMs / 1000)),
    maxOutputMb: Math.max(1, Math.floor(action.remaining.outputBytes / (1024 * 1024))),
  }, {
    signal: controller.signal,
    emit: (event) => {
      if (event.kind === "command") run.progress("backend", `$ ${event.command.slice(0, 60)}`);
      if (event.kind === "step") run.progress("backend", event.text.slice(0, 80));
      try {
        o.onBackendEvent?.(event, round.round);
      } catch {
        // a broken display never changes the run
      }
    },
    transcriptDir,
  });
  const settled = work.then((r) => ({ kind: "done" as const, result: r }));
  let first = await Promise.race([settled, deadline]);
  if (first === "deadline") {
    // Let the kernel decide: it pauses the task and cancels the effect.
    await run.feed({ kind: "timer_tick", taskId: o.taskId });
    controller.abort();
    first = await settled;
  }
  clearTimeout(deadlineTimer);
  run.running = null;
  const result = first.result;
  round.backend = result;
  if (result.patchText !== undefined && result.patchText.length > 0) {
    // A patch handed over as text (the `fn` backend, `vouch verify`) is the round's patch as
    // stated. With a worktree it is also applied there by git itself (no --unsafe-paths) so
    // the worktree shows what it does; a patch git refuses is refused again, with git's error,
    // by the clean verification.
    round.handed = result.patchText;
    if (run.worktree !== null) await applyPatchText(run.worktree, result.patchText);
  }
  if (result.transcript !== null) {
    await o.log.append({
      task: o.taskId,
      kind: LOG_KINDS.transcript,
      body: {
        round: round.round,
        stream: "summary",
        // The backend's own final message: a claim, bounded and masked, shown redacted.
        text: maskSecrets(result.summary.slice(0, 2000)).text,
        path: result.transcript.path,
        digest: result.transcript.digest,
        bytes: result.transcript.bytes,
        truncated: result.transcript.truncated,
        masked: result.transcript.masked,
      },
    });
  }
  if (result.decisions !== undefined && result.decisions.length > 0) {
    // Every request the agent made of vouch and vouch's answer, in the hash chain.
    await o.log.append({
      task: o.taskId,
      kind: LOG_KINDS.decisions,
      body: { round: round.round, decisions: result.decisions },
    });
  }
  await writeJson(run, `round-${round.round}/backend_result.json`, {
    ...result,
    patchText: result.patchText === undefined ? undefined : `${result.patchText.length} bytes`,
  });
  // Outside-worktree writes are judged with the patch (scope), never trusted away.
  run.outside = before === null
    ? []
    : diffOutsideSnapshots(before, await snapshotOutside(outsideScope(run)));
  if (result.status === "timed_out" || result.status === "cancelled") {
    round.reasons.push(`backend_${result.status}`);
    round.details.push(`the backend ${result.status.replace("_", " ")}; nothing to judge`);
    round.verdict = "rejected";
  }
  await run.feed({
    kind: "backend_finished",
    taskId: o.taskId,
    effectId: action.effectId,
    outcome: result.status,
    outputBytes: result.transcript?.bytes ?? 0,
    costUnits: costUnitsOfUsage(result.usage),
    // A non-retryable failure (protocol error, bad configuration): more rounds cannot help.
    fatal: result.status === "error" && result.failure !== undefined && !result.failure.retryable,
  });
}
