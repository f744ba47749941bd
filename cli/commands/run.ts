/**
 * `vouch run`: hand a task to a coding backend in a disposable worktree and end
 * with a VerifiedPatch or a clear rejection.
 *
 * @module
 */
import { dirname, resolve } from "node:path";
import { type CliCommand, type CliIo, UsageError } from "../command.ts";
import { GitError } from "../../adapters/git/git_checked.ts";
import { parseRunArgs, type RunArgs } from "./run_args.ts";
import type { AgentBackend } from "../../adapters/backends/types.ts";
import { codexBackend } from "../../adapters/backends/codex_backend.ts";
import { claudeBackend } from "../../adapters/backends/claude_backend.ts";
import { commandBackend } from "../../adapters/backends/command_backend.ts";
import { confinedBackend } from "../../adapters/driver/confined_backend.ts";
import { contractFromCommand } from "../../adapters/verification/clean_verifier.ts";
import { runInRepo } from "../../adapters/driver/run_in_repo.ts";
import { renderProgressLine, renderSummary } from "../render.ts";
import type { RunOutcome } from "../../adapters/driver/outcome.ts";
import type { OutcomeContract } from "../../kernel/contract/types.ts";
import { ContractError, loadContract } from "../../adapters/contract/load.ts";
import { detectVerifyCommand } from "../../adapters/verify_command/detect.ts";
import type { ApprovalQuestion } from "../../adapters/driver/run_task.ts";
import { jsonDocument } from "../json_document.ts";

const HELP = `vouch run: hand a task to a coding agent and keep only what verifies

Usage:
  vouch run --goal TEXT [--dir DIR] (--verify CMD | --contract FILE) [options]

Options:
  --dir DIR              repository (default .)
  --goal TEXT            what the backend should achieve (required)
  --verify CMD           shell command that defines done (exit 0 = pass); without it and
                         --contract, the repository's test command is detected
  --contract FILE        outcome contract (JSON) instead of --verify
  --backend B            codex | claude | command:PATH (default codex)
  --max-rounds N         backend rounds, first attempt included (default 3)
  --allow GLOB           paths the patch may touch (repeatable; default: anything not forbidden)
  --forbid GLOB          paths the patch may not touch (repeatable; .github/** is forbidden by default)
  --base REV             base revision (default HEAD; uncommitted changes are never part of it)
  --timeout SECONDS      wall-time budget of the whole task (default 1800)
  --backend-timeout S    limit per backend round
  --sandbox MODE         auto | bwrap | none for the checks and command: backends (default auto)
  --allow-setup-network  let the contract's setup commands (never its checks) use the network
                         when the contract asks for it (setup.network "allow", e.g. npm ci);
                         without it such a contract is refused: setup_network_not_allowed
  --integrate branch:NAME  commit the verified patch on a new branch (asks first)
  --yes                  approve --integrate without asking
  --json                 print one machine-readable result on stdout

Artefacts: .vouch/runs/<task>/ (patch, transcripts, evidence, outcome); log: .vouch/events.jsonl.

Examples:
  vouch run --goal "make the failing test pass" --verify "deno test"
  vouch run --backend claude --goal "add --json to the CLI" --verify "npm test" --max-rounds 2
  vouch run --backend command:./my-agent.sh --goal "fix #12" --verify "make test" --json
`;

function backendFor(args: RunArgs): AgentBackend {
  const home = Deno.env.get("HOME");
  switch (args.backend.kind) {
    case "codex":
      return codexBackend({
        passEnv: ["OPENAI_API_KEY", "CODEX_API_KEY"],
        ...(home !== undefined ? { home } : {}),
      });
    case "claude":
      return claudeBackend({
        passEnv: ["ANTHROPIC_API_KEY"],
        ...(home !== undefined ? { home } : {}),
      });
    case "command": {
      // A local agent program runs in the sandbox: only its worktree is writable, no network.
      const program = resolve(args.backend.path);
      const argv = [program];
      // The program's own directory must be visible (read-only) inside the sandbox.
      return confinedBackend((sandbox) => commandBackend({ argv, sandbox }), args.sandbox, {
        readOnly: [dirname(program)],
      });
    }
  }
}

async function contractFor(args: RunArgs): Promise<OutcomeContract> {
  const timeoutMs = Math.min(args.timeoutSeconds, 3600) * 1000;
  if (args.verify !== null) return contractFromCommand(args.verify, timeoutMs);
  if (args.contract !== null) {
    try {
      return await loadContract(args.contract);
    } catch (error) {
      if (error instanceof ContractError) throw new UsageError(error.message);
      throw error;
    }
  }
  // Neither given: detect the repository's test command (deno.json, package.json, ...).
  const detected = detectVerifyCommand(args.dir);
  if (detected === null) {
    throw new UsageError(
      "Cannot run: no test command found; give --verify CMD or --contract FILE (what defines done)",
    );
  }
  return {
    description: `the repository's test command (${detected.source})`,
    checks: [{
      name: "tests",
      run: detected.run,
      expect: [{ kind: "exit-zero" }],
      timeoutMs,
      baseline: false,
      differential: null,
      tests: detected.tests,
    }],
    protect: [],
  };
}

async function askOnTerminal(q: ApprovalQuestion): Promise<boolean> {
  if (!Deno.stdin.isTerminal()) return false;
  const text = [
    "",
    `Integrate verified patch ${q.patchDigest.slice(0, 19)} on new branch "${q.branch}"?`,
    `  files: ${q.files.join(", ") || "-"}`,
    ...(q.sensitive.length > 0 ? [`  sensitive: ${q.sensitive.join(", ")}`] : []),
    `  because: ${q.reasons.join(", ")}`,
    "Type yes to approve: ",
  ].join("\n");
  Deno.stderr.writeSync(new TextEncoder().encode(text));
  const buf = new Uint8Array(64);
  const n = await Deno.stdin.read(buf);
  const answer = new TextDecoder().decode(buf.subarray(0, n ?? 0)).trim().toLowerCase();
  return answer === "yes" || answer === "y";
}

/** Runs `vouch run` with parsed flags; exported for the demo and tests. */
export async function executeRun(
  args: RunArgs,
  io: CliIo,
  backend: AgentBackend,
  signal?: AbortSignal,
): Promise<RunOutcome> {
  const contract = await contractFor(args);
  let lastLine = "";
  return await runInRepo({
    dir: args.dir,
    goal: args.goal,
    backend,
    contract,
    maxRounds: args.maxRounds,
    allow: args.allow,
    forbid: args.forbid,
    ...(args.base !== null ? { base: args.base } : {}),
    wallTimeMs: args.timeoutSeconds * 1000,
    ...(args.backendTimeoutSeconds !== null
      ? { backendTimeoutMs: args.backendTimeoutSeconds * 1000 }
      : {}),
    sandbox: args.sandbox,
    allowSetupNetwork: args.allowSetupNetwork,
    ...(args.integrateBranch !== null
      ? {
        integrate: {
          branch: args.integrateBranch,
          approver: args.yes ? "cli:--yes" : "cli:terminal",
          approve: (q: ApprovalQuestion) => args.yes ? Promise.resolve(true) : askOnTerminal(q),
        },
      }
      : {}),
    ...(signal !== undefined ? { signal } : {}),
    onNote: (text) => io.err(`${text}\n`),
    onProgress: (p) => {
      const line = renderProgressLine(p);
      if (io.isTerminal) {
        io.err(`\r\x1b[2K${line}`);
        if (p.phase === "done") io.err("\n");
        return;
      }
      // Not a terminal: one line per phase/check change, no redraws.
      const key = `${p.round}|${p.phase}|${p.check ?? ""}`;
      if (!args.json && key !== lastLine) io.err(`${line}\n`);
      lastLine = key;
    },
  });
}

/** `vouch run`. */
export const runCommand: CliCommand = {
  name: "run",
  summary: "hand a task to a coding agent; keep only a patch that verifies",
  help: HELP,
  exits: { 0: "verified", 1: "rejected", 3: "budget exhausted", 4: "backend failed" },
  async run(argv, io) {
    const args = parseRunArgs(argv);
    const backend = backendFor(args);
    const controller = new AbortController();
    // First Ctrl-C: stop the backend, clean up, close the log. Second: leave now.
    const onSigint = () => {
      if (controller.signal.aborted) Deno.exit(130);
      io.err("\nvouch: stopping (Ctrl-C again to exit at once)\n");
      controller.abort();
    };
    let listening = false;
    try {
      Deno.addSignalListener("SIGINT", onSigint);
      listening = true;
    } catch {
      // Signals unavailable (e.g. Windows without a console): Ctrl-C kills the process.
    }
    try {
      const outcome = await executeRun(args, io, backend, controller.signal).catch(asUsage);
      if (args.json) io.out(JSON.stringify(jsonDocument(outcome)) + "\n");
      else io.out(renderSummary(outcome));
      return outcome.exitCode;
    } finally {
      if (listening) Deno.removeSignalListener("SIGINT", onSigint);
    }
  },
};

/** A repository that is not one, or a revision that does not resolve, is a usage error. */
function asUsage(error: unknown): never {
  if (error instanceof GitError && (error.code === "not_a_repo" || error.code === "bad_rev")) {
    throw new UsageError(error.message);
  }
  throw error;
}
