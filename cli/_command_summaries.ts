/**
 * Each CLI subcommand's one-line summary, in the order `vouch --help` lists
 * them: what the help shows without loading any command, and what each
 * command says of itself (`listedCommand`). Add one entry here per command.
 *
 * @module
 */

/** Each command's name and one line for `vouch --help`, in the order it lists them. */
export const COMMAND_SUMMARIES = {
  evaluate: "judge a result bundle (manifest, patch, logs) against a WorkUnit and plan",
  demo: "see vouch reject a false 'done' and verify a real fix (no network)",
  init: "write a starter contract (detected test command, test files protected)",
  run: "hand a task to a coding agent; keep only a patch that verifies",
  verify: "verify a patch from anywhere in a clean tree (CI use)",
  gc: "remove worktrees left behind by crashed runs",
  scope: "check every path a patch touches against confinement and allowed/forbidden globs",
  doctor: "check git, process groups, the sandbox and agent CLIs on this machine",
  inspect: "verify and replay an event log; print per-task timelines",
  attest: "export or verify a signed in-toto attestation of a verified patch",
  batch: "grade many candidate patches (SWE-bench predictions) in parallel, with reports",
  worker: "judge the candidates `vouch batch --queue` enqueued on Redis",
} as const;

/** The word after `vouch` of one of the commands. */
export type CommandName = keyof typeof COMMAND_SUMMARIES;
