/**
 * The `run_backend` handler: one round of the task's patch source (an agent
 * in its worktree, or supplied bytes). The backend's report is a claim; only
 * its accounting and its stop reason reach the kernel (`backend_finished`),
 * and writes outside the worktree are kept to be judged with the patch.
 *
 * @module
 */
import { mkdir } from "node:fs/promises";
import type { RunBackendAction } from "../../kernel/lifecycle/actions.ts";
import { maskSecrets } from "../backends/transcript.ts";
import { costUnitsOfUsage } from "../backends/result.ts";
import type { BackendResult } from "../backends/types.ts";
import { LOG_KINDS } from "../log/kinds.ts";
import { writeJson } from "./_artefacts.ts";
import { startEffect } from "./_effects.ts";
import type { RoundState, TaskRun } from "./_task_run.ts";
import type { ProducedRound } from "./patch_source.ts";
import { roundPrompt } from "./round_prompt.ts";
import { promptRound } from "./_round_words.ts";

/** Runs one round of the patch source and reports its end to the kernel. */
export async function runBackendRound(run: TaskRun, action: RunBackendAction): Promise<void> {
  const o = run.o;
  const round: RoundState = {
    round: action.round + 1,
    backend: null,
    patch: null,
    diff: null,
    patchDigest: null,
    files: [],
    extractFailed: false,
    changes: null,
    violations: [],
    denied: null,
    sensitive: [],
    run: null,
    ended: null,
  };
  run.rounds.push(round);
  run.progress("backend", o.source.id);
  const previous = run.rounds.at(-2);
  const feedback = previous === undefined
    ? undefined
    : roundPrompt(promptRound(previous), run.baseline);
  await run.feed({ kind: "backend_started", taskId: o.taskId, effectId: action.effectId });
  const remainingMs = Math.max(1, action.deadlineAt - run.now());
  const limitMs = Math.min(remainingMs, o.backendTimeoutMs ?? remainingMs);
  const transcriptDir = `${o.artefactsDir}/round-${round.round}`;
  await mkdir(transcriptDir, { recursive: true });
  const produced = await withDeadline(
    run,
    action.effectId,
    remainingMs,
    (signal) =>
      o.source.produce({
        task: {
          taskId: o.taskId,
          attempt: round.round,
          goal: o.goal,
          ...(feedback !== undefined ? { feedback } : {}),
          worktree: action.worktree,
          allowedRoots: o.rules.allow.length > 0 ? o.rules.allow : ["**"],
          forbiddenPaths: [...o.rules.forbid, ...o.rules.protect],
          maxSeconds: Math.max(1, Math.floor(limitMs / 1000)),
          maxOutputMb: Math.max(1, Math.floor(action.remaining.outputBytes / (1024 * 1024))),
        },
        signal,
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
      }),
  );
  run.outside = [...produced.outside];
  const result = produced.claim;
  round.backend = result;
  if (result !== null) await recordClaim(run, round, result);
  await run.feed({
    kind: "backend_finished",
    taskId: o.taskId,
    effectId: action.effectId,
    // Supplied bytes: no backend ran, and none failed.
    outcome: result?.status ?? "ok",
    outputBytes: result?.transcript?.bytes ?? 0,
    costUnits: result === null ? 0 : costUnitsOfUsage(result.usage),
    // A non-retryable failure (protocol error, bad configuration): more rounds cannot help.
    fatal: result !== null && result.status === "error" && result.failure !== undefined &&
      !result.failure.retryable,
  });
}

/**
 * Runs the round with the wall-time budget enforced through the kernel: at the
 * deadline it hears a timer tick (it pauses the task and cancels the effect),
 * then the round is aborted and its result awaited.
 */
async function withDeadline(
  run: TaskRun,
  effectId: string,
  remainingMs: number,
  work: (signal: AbortSignal) => Promise<ProducedRound>,
): Promise<ProducedRound> {
  const controller = startEffect(run, effectId);
  let deadlineTimer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"deadline">((resolve) => {
    deadlineTimer = setTimeout(() => resolve("deadline"), remainingMs + 5);
  });
  const settled = work(controller.signal).then((r) => ({ kind: "done" as const, result: r }));
  let first = await Promise.race([settled, deadline]);
  if (first === "deadline") {
    await run.feed({ kind: "timer_tick", taskId: run.o.taskId });
    controller.abort();
    first = await settled;
  }
  clearTimeout(deadlineTimer);
  run.running = null;
  return first.result;
}

/** The backend's claim, recorded: its transcript and decisions logged, its report written. */
async function recordClaim(run: TaskRun, round: RoundState, result: BackendResult): Promise<void> {
  const o = run.o;
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
}
