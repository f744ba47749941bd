/**
 * The prompt handed to agent CLIs (Codex, Claude Code): the goal, the rules
 * of the task, and the previous round's feedback. The text is guidance for
 * the agent; vouch enforces every rule itself.
 *
 * @module
 */
import type { AgentTask } from "./types.ts";

/**
 * Composes the prompt for one attempt.
 *
 * @example
 * ```ts
 * import { composePrompt } from "./prompt.ts";
 * const p = composePrompt({
 *   taskId: "t1", attempt: 2, goal: "Fix add()", feedback: "check test failed", worktree: "/w",
 *   allowedRoots: ["src/**"], forbiddenPaths: [], maxSeconds: 60, maxOutputMb: 5,
 * });
 * if (!p.includes("(attempt 2)") || !p.includes("check test failed")) throw new Error();
 * ```
 */
export function composePrompt(task: AgentTask): string {
  const lines = [
    `Task ${task.taskId} (attempt ${task.attempt}). You are working in a disposable git worktree at ${task.worktree}.`,
    "",
    "Goal:",
    task.goal,
    "",
    "Rules (enforced by the supervisor, which re-runs every check itself):",
    `- Change files only inside the worktree${
      task.allowedRoots.length > 0
        ? `, and only paths matching: ${task.allowedRoots.join(", ")}`
        : ""
    }.`,
  ];
  if (task.forbiddenPaths.length > 0) {
    lines.push(`- Never change: ${task.forbiddenPaths.join(", ")}.`);
  }
  lines.push(
    "- No network access; no secrets are available.",
    "- Do not commit; leave your changes in the working tree.",
    `- You have ${task.maxSeconds} seconds.`,
  );
  if (task.feedback !== undefined && task.feedback !== "") {
    lines.push(
      "",
      "The previous attempt was not verified. Feedback from the supervisor:",
      task.feedback,
    );
  }
  lines.push("", "When you are finished, reply with a short summary of what you changed.");
  return lines.join("\n") + "\n";
}
