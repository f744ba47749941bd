/**
 * `vouch run`: hand a task to a coding backend in a disposable worktree and end
 * with a VerifiedPatch or a clear rejection.
 *
 * @module
 */
import { visible } from "../../adapters/text/mod.ts";
import process from "node:process";
import { isatty } from "node:tty";
import { type CliCommand, type CliIo, UsageError } from "../command.ts";
import { listedCommand } from "./_listed.ts";
import { GitError } from "../../adapters/git/git_checked.ts";
import { VouchError } from "../../kernel/errors/mod.ts";
import { parseRunArgs, type RunArgs } from "./run_args.ts";
import type { AgentBackend } from "../../adapters/backends/types.ts";
import type { BackendFailure } from "../../adapters/backends/types.ts";
import { agentConfigFor, backendFor } from "./run_backend.ts";
import { plainProgressEveryMs, type ProgressSink, progressSink } from "./run_progress.ts";
import { preflightSandbox } from "../sandbox_preflight.ts";
import { UNSANDBOXED_WARNING } from "../../adapters/sandbox/profile.ts";
import { contractFromCommand } from "../../adapters/verification/clean_verifier.ts";
import { runInRepo, runOutcomeReport } from "../../adapters/driver/run_in_repo.ts";
import { type ModelFetch, modelFetch } from "../../adapters/backends/model_net.ts";
import { askYes } from "../terminal_prompt.ts";
import { renderSummary } from "../render.ts";
import type { RunOutcome } from "../../adapters/driver/outcome.ts";
import type { OutcomeContract } from "../../kernel/contract/types.ts";
import { FINAL_STATES } from "../../kernel/lifecycle/outcome.ts";
import { ContractError, loadContract } from "../../adapters/contract/load.ts";
import { resolve } from "node:path";
import { findRepositoryRoot } from "../../adapters/keys/mod.ts";
import {
  describeVerifyCommand,
  detectVerifyCommand,
} from "../../adapters/verify_command/detect.ts";
import type { ApprovalQuestion } from "../../adapters/driver/run_task.ts";
import { jsonDocument } from "../json_document.ts";
import { leaveNow } from "../leave_now.ts";
import {
  renderUnstartable,
  type UnstartableCommand,
  unstartableVerifyCommand,
} from "../verify_preflight.ts";
import { VERDICTS } from "../../adapters/driver/verdicts.ts";

const HELP = `vouch run: hand a task to a coding agent and keep only what verifies

Usage:
  vouch run --goal TEXT [--dir DIR] (--verify CMD | --contract FILE) [options]

Options:
  --dir DIR              repository (default .)
  --goal TEXT            what the backend should achieve (required)
  --verify CMD           shell command that defines done (exit 0 = pass); without it and
                         --contract, the repository's test command is detected
  --contract FILE        outcome contract (JSON) instead of --verify
  --backend B            codex | claude | command:PATH | acp:COMMAND | openai:MODEL (default
                         codex); acp: runs an Agent Client Protocol agent with vouch as its
                         client (e.g. acp:claude-code-acp); acp:claude, acp:codex, acp:gemini,
                         acp:qwen are presets (flags, provider variables, state; docs/backends.md)
  --base-url URL         with openai:MODEL, the OpenAI-compatible API root (e.g.
                         http://127.0.0.1:8080/v1 for llama.cpp, vLLM or Ollama)
  --api-key-env NAME     with openai:MODEL, the variable holding the key (default OPENAI_API_KEY)
  --max-cost UNITS       the task's cost budget, in the backend's units (openai: tokens;
                         claude: cents; acp: cents when the agent reports a cost, else
                         tokens); past it the task stops with exit 3
  --max-rounds N         backend rounds, first attempt included (default 3)
  --allow GLOB           paths the patch may touch (repeatable; default: anything not forbidden)
  --forbid GLOB          paths the patch may not touch (repeatable; .github/**, **/node_modules/**, **/.venv/**, Python bytecode and *.so are forbidden by default)
  --base REV             base revision (default HEAD; uncommitted changes are never part of it)
  --timeout SECONDS      wall-time budget of the whole task (default 1800)
  --backend-timeout S    limit per backend round
  --sandbox MODE         auto | bwrap | none for the agent and the checks (default auto: bwrap,
                         and without a working bwrap stop with exit 5; none runs them as you,
                         warned on every run)
  --sandbox-ro PATH      a path outside the tree the checks need, read-only in their sandbox
                         (repeatable; recorded in the receipts)
  --allow-setup-network  let the contract's setup commands (never its checks) use the network
                         when the contract asks for it (setup.network "allow", e.g. npm ci);
                         without it such a contract is refused: setup_network_not_allowed
  --tests-editable       the agent may redefine the tests: a patch that changes test files is
                         graded against its own tests only, NOT also against the base's (the
                         verdict says so); without it the patch never defines its own judge
  --worktree-root DIR    where worktrees live (default $VOUCH_WORKTREE_ROOT, else
                         <tmp>/vouch-<user>/worktrees: no dot-directory in the path)
  --integrate branch:NAME  commit the verified patch on a new branch (asks first)
  --yes                  approve --integrate without asking
  --json                 print one machine-readable result on stdout
  --progress MODE        live progress on stderr: plain (default; none with --json), json (one
                         object per line: phases and backend events), none
  --agent-env NAME       forward the variable NAME from vouch's environment to the agent
                         (repeatable; names only, values are never logged or accepted as flags)
  --egress-allow HOST[:PORT]  a host the agent may reach besides its model provider's
                         (repeatable; port 443 unless given; *.example.com for subdomains).
                         The agent runs in its own network namespace: only its provider's
                         hosts (the hosts of the forwarded *_BASE_URL variables, else the
                         provider's defaults) are forwarded by vouch's proxy; anything else is
                         refused and recorded
  --agent-network MODE   filtered (default) | host: host shares this machine's network with the
                         agent UNFILTERED and UNRECORDED (warned on every run)
  --mcp-config FILE      with acp:, your MCP servers ({"mcpServers": {"NAME": {"command",
                         "args", "env"}}}, as Claude and Zed write it; stdio servers only),
                         offered in session/new; the agent starts them inside its sandbox
  --agent-config FILE    agent-CLI settings (default $VOUCH_CONFIG, else
                         $XDG_CONFIG_HOME/vouch/config.json or ~/.config/vouch/config.json)

Credentials and providers (codex, claude):
  The CLI uses your HOME (its own login) and these variables when set, forwarded by name:
    codex:  OPENAI_API_KEY CODEX_API_KEY OPENAI_BASE_URL OPENAI_ORGANIZATION OPENAI_PROJECT
            CODEX_HOME AZURE_OPENAI_API_KEY
    claude: ANTHROPIC_API_KEY ANTHROPIC_AUTH_TOKEN ANTHROPIC_BASE_URL ANTHROPIC_MODEL
            ANTHROPIC_SMALL_FAST_MODEL ANTHROPIC_CUSTOM_HEADERS CLAUDE_CODE_USE_BEDROCK
            CLAUDE_CODE_USE_VERTEX ANTHROPIC_VERTEX_PROJECT_ID CLOUD_ML_REGION CLAUDE_CONFIG_DIR
            CLAUDE_CODE_MAX_RETRIES API_TIMEOUT_MS
    both:   HTTPS_PROXY HTTP_PROXY NO_PROXY SSL_CERT_FILE
  Anything else: --agent-env NAME, or "env" in the config file's section. The config file
  ({"backends": {"codex": {...}, "claude": {...}}}) sets per backend: "model", "env" (names),
  "args" (extra CLI arguments), "executable"; claude also "tools" (its closed tool set).
  Telemetry, update checks and other nonessential traffic of both CLIs are turned off.
  See docs/backends.md.

Artefacts: .vouch/runs/<task>/ (patch, transcripts, evidence, outcome); log: .vouch/events.jsonl.

Examples:
  vouch run --goal "make the failing test pass" --verify "deno test"
  vouch run --backend claude --goal "add --json to the CLI" --verify "npm test" --max-rounds 2
  vouch run --backend command:./my-agent.sh --goal "fix #12" --verify "make test" --json
`;

async function contractFor(args: RunArgs, io: CliIo): Promise<OutcomeContract> {
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
  // At the top of the repository, wherever in it the user stands (checks run at the top too).
  const detected = detectVerifyCommand(findRepositoryRoot(resolve(args.dir)));
  if (detected === null) {
    throw new UsageError(
      "Cannot run: no test command found; give --verify CMD or --contract FILE (what defines done)",
    );
  }
  // Say what defines done: the detected command is what every round is judged by.
  if (!args.json) io.err(`${describeVerifyCommand(detected)}\n`);
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
  if (!isatty(0)) return false;
  const text = [
    "",
    `Integrate verified patch ${q.patchDigest.slice(0, 19)} on new branch "${q.branch}"?`,
    `  files: ${q.files.join(", ") || "-"}`,
    ...(q.sensitive.length > 0 ? [`  sensitive: ${q.sensitive.join(", ")}`] : []),
    `  because: ${q.reasons.join(", ")}`,
    "Type yes to approve: ",
  ].join("\n");
  return await askYes(text);
}

/** Runs `vouch run` with parsed flags; exported for the demo and tests. */
export async function executeRun(
  args: RunArgs,
  io: CliIo,
  backend: AgentBackend,
  signal?: AbortSignal,
  given?: OutcomeContract,
): Promise<RunOutcome> {
  const contract = given ?? await contractFor(args, io);
  // Can the backend start at all? Checked before the baseline spends any time.
  const unavailable = await backend.preflight?.() ?? null;
  if (unavailable !== null) throw new BackendUnavailableError(backend.id, unavailable);
  const started = Date.now();
  const sink = progressSink(args.progress, io, backend.id, () => Date.now() - started, {
    plainEveryMs: plainProgressEveryMs(),
  });
  try {
    return await runWithSink(args, backend, contract, sink, signal);
  } finally {
    sink.stop();
  }
}

function runWithSink(
  args: RunArgs,
  backend: AgentBackend,
  contract: OutcomeContract,
  sink: ProgressSink,
  signal: AbortSignal | undefined,
): Promise<RunOutcome> {
  return runInRepo({
    dir: args.dir,
    goal: args.goal,
    backend,
    contract,
    maxRounds: args.maxRounds,
    ...(args.maxCost !== null ? { costUnits: args.maxCost } : {}),
    allow: args.allow,
    forbid: args.forbid,
    ...(args.base !== null ? { base: args.base } : {}),
    wallTimeMs: args.timeoutSeconds * 1000,
    ...(args.backendTimeoutSeconds !== null
      ? { backendTimeoutMs: args.backendTimeoutSeconds * 1000 }
      : {}),
    sandbox: args.sandbox,
    sandboxReadOnly: args.sandboxReadOnly,
    allowSetupNetwork: args.allowSetupNetwork,
    ...(args.testsEditable ? { testsEditable: true } : {}),
    ...(args.worktreeRoot !== null ? { worktreeRoot: args.worktreeRoot } : {}),
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
    // The verdict first; `runCli` waits for the trees' removal before it returns.
    treeRemoval: "after_return",
    onNote: sink.onNote,
    onProgress: sink.onProgress,
    onBackendEvent: sink.onBackendEvent,
    onStep: sink.onStep,
  });
}

/** `vouch run`. */
export const runCommand: CliCommand = {
  // Every final state is a verdict of `run`.
  ...listedCommand("run", HELP, {
    0: "verified",
    1: "rejected",
    3: "budget exhausted",
    4: "backend failed",
  }, FINAL_STATES),
  async run(argv, io) {
    const args = parseRunArgs(argv);
    await preflightSandbox(args.sandbox, io, "run");
    // A --verify command that cannot start is said before the backend or a baseline runs.
    const unstartable = args.verify === null ? null : await unstartableVerifyCommand(args.verify);
    if (unstartable !== null) return reportUnstartable(args, io, unstartable);
    // The contract first: its `sandbox.agentLimits` confine the agent.
    const contract = await contractFor(args, io).catch(asUsage);
    // vouch runs with --deny-net: the native loop reaches the model's one address, nothing
    // else, through a helper process that may reach only it (vouch is not started again).
    const net = args.backend.kind === "openai" ? modelNetFor(args.backend.baseUrl) : null;
    try {
      return await runWith(args, io, contract, net);
    } finally {
      net?.close();
    }
  },
};

async function runWith(
  args: RunArgs,
  io: CliIo,
  contract: OutcomeContract,
  net: ModelFetch | null,
): Promise<number> {
  const backend = backendFor(
    args,
    agentConfigFor(args),
    contract.sandbox?.agentLimits,
    net?.fetch,
  );
  const controller = new AbortController();
  // First Ctrl-C: stop the backend, clean up, close the log. Second: leave now.
  const onSigint = () => {
    // Second Ctrl-C: leave now, but not locked: the lock goes, the trees are removed behind us.
    if (controller.signal.aborted) leaveNow(io);
    io.err("\nvouch: stopping (Ctrl-C again to exit at once)\n");
    controller.abort();
  };
  let listening = false;
  try {
    process.on("SIGINT", onSigint);
    listening = true;
  } catch {
    // Signals unavailable (e.g. Windows without a console): Ctrl-C kills the process.
  }
  try {
    let outcome;
    try {
      outcome = await executeRun(args, io, backend, controller.signal, contract).catch(asUsage);
    } catch (error) {
      if (!(error instanceof BackendUnavailableError)) throw error;
      return reportUnavailable(args, io, error.why);
    }
    if (args.json) io.out(JSON.stringify(jsonDocument(runOutcomeReport(outcome))) + "\n");
    else {
      io.out(visible(renderSummary(outcome)));
      if (args.sandbox === "none") io.out(`sandbox: none: ${UNSANDBOXED_WARNING}\n`);
    }
    return outcome.exitCode;
  } finally {
    if (listening) process.off("SIGINT", onSigint);
  }
}

/** The model's network for the `openai:` loop (a usage error when it cannot be had). */
function modelNetFor(baseUrl: string): ModelFetch {
  const url = new URL(baseUrl);
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, "");
  try {
    return modelFetch(host, port);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** A repository that is not one, or a revision that does not resolve, is a usage error. */
function asUsage(error: unknown): never {
  if (error instanceof GitError && (error.code === "not_a_repo" || error.code === "bad_rev")) {
    throw new UsageError(error.message);
  }
  throw error;
}

/** Thrown by {@linkcode executeRun} when the backend's preflight fails (nothing ran). */
export class BackendUnavailableError extends VouchError<"backend_unavailable"> {
  /** The backend's id and why its preflight failed. */
  constructor(readonly backend: string, readonly why: BackendFailure) {
    super("backend_unavailable", `the backend cannot start: ${why.message}`);
  }
}

/** The `--json` line of a run that never started: no task, base, artefacts or log. */
function neverStarted(
  state: "backend_failed" | "could_not_run",
  reason: string,
  message: string,
  more: Partial<RunOutcome> = {},
): string {
  return JSON.stringify(jsonDocument<RunOutcome>({
    task: "",
    state,
    exitCode: VERDICTS[state].exitCode,
    reason,
    message,
    base: "",
    baseline: [],
    rounds: [],
    patchFile: null,
    patchDigest: null,
    artefactsDir: "",
    logPath: "",
    integrated: null,
    elapsedMs: 0,
    ...more,
  })) + "\n";
}

/** A backend that cannot start: its cause on screen (and in `--json`), exit 4, nothing run. */
function reportUnavailable(
  args: RunArgs,
  io: CliIo,
  why: BackendFailure,
): number {
  const message = `the backend cannot start: ${why.message}`;
  if (args.json) {
    io.out(neverStarted("backend_failed", "backend_unavailable", message, {
      backendFailure: { code: why.code, message: why.message },
    }));
  } else {
    io.out(`${VERDICTS.backend_failed.word} (backend_unavailable): ${message}\n`);
  }
  return VERDICTS.backend_failed.exitCode;
}

/** A --verify command that cannot start: said at once (and in `--json`), exit 5, nothing run. */
function reportUnstartable(args: RunArgs, io: CliIo, u: UnstartableCommand): number {
  if (args.json) io.out(neverStarted("could_not_run", u.reason, u.message));
  else io.out(renderUnstartable(u));
  return VERDICTS.could_not_run.exitCode;
}
