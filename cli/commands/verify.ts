/**
 * `vouch verify`: clean verification of a patch from anywhere.
 *
 * @module
 */
import { visible, visibleLine } from "../../adapters/text/mod.ts";
import { JSON_FLAG, parseFlags, sandboxFlag } from "./_flags.ts";
import { type CliCommand, type CliIo, EXIT, UsageError } from "../command.ts";
import { listedCommand } from "./_listed.ts";
import { GitError } from "../../adapters/git/git_checked.ts";
import { verifyPatchReport, verifyPatchSharing } from "../../adapters/driver/verify_patch.ts";
import { renderVerifyOutcome } from "../render.ts";
import { resolve } from "node:path";
import { contractFromCommand } from "../../adapters/verification/clean_verifier.ts";
import { ContractError, loadContract } from "../../adapters/contract/load.ts";
import type { OutcomeContract } from "../../kernel/contract/types.ts";
import { jsonDocument } from "../json_document.ts";
import { leaveNow } from "../leave_now.ts";
import { plainProgressEveryMs, realEvery } from "./run_progress.ts";
import { commitHeaderNote } from "../patch_note.ts";
import {
  renderUnstartable,
  type UnstartableCommand,
  unstartableVerifyCommand,
} from "../verify_preflight.ts";
import { VERDICTS } from "../../adapters/driver/verdicts.ts";
import { sha256Hex } from "../../adapters/digest/sha256.ts";
import type { VerifyPatchOptions, VerifyPatchOutcome } from "../../adapters/driver/verify_patch.ts";
import process from "node:process";
import { readInput } from "../input.ts";
import { MAX_TIMEOUT_SECONDS, parseSandboxReadOnly } from "./run_args.ts";
import { preflightSandbox } from "../sandbox_preflight.ts";
import { probeSandbox } from "../../adapters/host/sandbox_probe.ts";
import { UNSANDBOXED_WARNING } from "../../adapters/sandbox/profile.ts";

const HELP = `vouch verify: verify a patch from anywhere in a clean tree

Usage:
  vouch verify --patch FILE (--verify CMD | --contract FILE) [--dir DIR] [--base REV] [--json]

The patch is parsed strictly, scope-checked (CI config such as .github/**,
node_modules/ at any depth and Python bytecode are forbidden unless --allow'ed
by name), applied with \`git apply --index\` to a fresh worktree of the base,
and the contract runs there in the sandbox.

Options:
  --patch FILE      the patch (git diff --binary format; - for stdin)
  --verify CMD      shell command that defines done
  --contract FILE   outcome contract (JSON)
  --dir DIR         repository (default .)
  --base REV        base revision the patch applies to (default HEAD)
  --allow GLOB      allowed paths (repeatable)
  --forbid GLOB     forbidden paths (repeatable)
  --sandbox MODE    auto | bwrap | none (default auto: bwrap, and without a working bwrap
                    stop with exit 5; none runs the checks as you, warned on every run)
  --sandbox-ro PATH a path outside the tree the checks need, read-only in their sandbox
                    (repeatable; recorded in the receipts)
  --allow-setup-network
                    let the contract's setup commands (never its checks) use the network
                    when the contract asks for it (setup.network "allow", e.g. npm ci);
                    without it such a contract is refused: setup_network_not_allowed
  --timeout SECONDS per-check timeout (default 600)
  --baseline        the base must be able to run the contract: a contract that cannot run
                    at the base (or gates nothing) stops there (the baseline itself always
                    runs: the verdict is judged against it, per test when the output shows
                    test ids: the base's failing tests must pass, its passing ones still pass)
  --no-baseline     skip the baseline: gives up the test-level differential (only exit
                    codes judge; a patch touching tests is still graded by the base's tests)
  --tests-editable  the patch may redefine the tests: a patch that changes test files is
                    graded against its own tests only, NOT also against the base's (the
                    verdict says so); without it, the patch never defines the test that judges it
  --attest-out FILE when verified, also write a signed in-toto attestation of exactly this
                    patch (DSSE, Ed25519; as \`vouch attest export --task\` would)
  --worktree-root DIR
                    where the clean trees live (default $VOUCH_WORKTREE_ROOT, else
                    <tmp>/vouch-<user>/worktrees: no dot-directory in the path)
  --json            machine-readable result on stdout

Examples:
  git diff --binary HEAD~1 > fix.patch && vouch verify --patch fix.patch --base HEAD~1 --verify "deno test"
  vouch verify --patch pr.patch --contract vouch.contract.json --json
`;

/** `vouch verify`. */
export const verifyCommand: CliCommand = {
  ...listedCommand("verify", HELP, { 0: "verified", 1: "rejected" }, [
    "verified",
    "rejected",
    "could_not_run",
    "killed",
  ]),
  async run(argv, io) {
    const values = verifyFlags(argv);
    const sandbox = sandboxFlag(values.sandbox);
    const timeoutSeconds = timeoutFlag(values.timeout);
    const sandboxReadOnly = parseSandboxReadOnly(values["sandbox-ro"] ?? []);
    // One probe (a bwrap start) for the preflight and the checks' sandbox, not one each.
    const probe = sandbox === "none" ? undefined : probeSandbox();
    await preflightSandbox(sandbox, io, "verify", await probe);
    const contract = await contractOf(values, timeoutSeconds);
    const patch = await readPatch(values.patch);
    const header = commitHeaderNote(patch);
    if (header !== null) io.err(`${header}\n`);
    // A check that cannot start is found before any tree is made or dependency copied.
    const unstartable = values.verify === undefined
      ? null
      : await unstartableVerifyCommand(values.verify);
    if (unstartable !== null) {
      const report = verifyPatchReport(notStarted(sha256Hex(patch), unstartable));
      io.out(
        values.json ? JSON.stringify(jsonDocument(report)) + "\n" : renderUnstartable(unstartable),
      );
      return VERDICTS.could_not_run.exitCode;
    }
    const stopListening = leaveOnSigint(io);
    const progress = values.json ? null : plainProgress(io);
    const outcome = await verifyPatchSharing({
      ...verifyOptions(values, io, progress),
      patch,
      contract,
      sandbox,
      sandboxReadOnly,
      ...(probe !== undefined ? { sandboxProbe: probe } : {}),
    }).catch(asUsage).finally(() => {
      progress?.stop();
      stopListening();
    });
    if (progress !== null && outcome.task !== "" && !values["no-baseline"]) {
      progress.say(baselineLine(outcome.baselineCached));
    }
    if (values.json) {
      io.out(JSON.stringify(jsonDocument(verifyPatchReport(outcome))) + "\n");
    } else {
      io.out(visible(renderVerifyOutcome(verifyPatchReport(outcome))));
      if (sandbox === "none") io.out(`sandbox: none: ${UNSANDBOXED_WARNING}\n`);
    }
    if (outcome.verdict === "verified") {
      if (values["attest-out"] === undefined) return EXIT.ok;
      // The attestation code (in-toto, DSSE, its schemas) loads only for --attest-out.
      const { exportVerifiedPatchAttestation } = await import("./attest.ts");
      return await exportVerifiedPatchAttestation({
        logPath: outcome.logPath,
        task: outcome.task,
        patchDigest: outcome.patchDigest,
        // The patch the driver holds is attested as held: the log is not read again.
        ...(outcome.verifiedPatch !== null ? { minted: outcome.verifiedPatch.toJSON() } : {}),
        out: values["attest-out"],
        predicate: "vouch",
      }, io);
    }
    // The kernel's final state of the verification task decides: 1 rejected, 5 could not run
    // (vouch could not judge: the baseline or a check cannot start), 130 killed.
    return outcome.exitCode;
  },
};

/** `vouch verify`'s flags, with the combinations that cannot go together refused. */
function verifyFlags(argv: readonly string[]) {
  const values = parseFlags(argv, {
    patch: { type: "string" },
    verify: { type: "string" },
    contract: { type: "string" },
    dir: { type: "string", default: "." },
    base: { type: "string" },
    allow: { type: "string", multiple: true },
    forbid: { type: "string", multiple: true },
    sandbox: { type: "string", default: "auto" },
    "sandbox-ro": { type: "string", multiple: true },
    timeout: { type: "string", default: "600" },
    ...JSON_FLAG,
    baseline: { type: "boolean" },
    "no-baseline": { type: "boolean", default: false },
    "tests-editable": { type: "boolean", default: false },
    "allow-setup-network": { type: "boolean", default: false },
    "attest-out": { type: "string" },
    "worktree-root": { type: "string" },
  });
  if (values["no-baseline"] && values.baseline === true) {
    throw new UsageError("Cannot use --baseline with --no-baseline");
  }
  const patch = values.patch;
  if (patch === undefined) throw new UsageError("Cannot verify: --patch FILE is required");
  if ((values.verify === undefined) === (values.contract === undefined)) {
    throw new UsageError("Cannot verify: give exactly one of --verify CMD and --contract FILE");
  }
  return { ...values, patch };
}

type VerifyFlags = ReturnType<typeof verifyFlags>;

/** `--timeout`: whole seconds, 1 to {@linkcode MAX_TIMEOUT_SECONDS}. */
function timeoutFlag(value: string): number {
  if (!/^[0-9]+$/.test(value)) throw new UsageError("Cannot parse --timeout");
  const seconds = Number(value);
  if (seconds < 1 || seconds > MAX_TIMEOUT_SECONDS) {
    throw new UsageError(
      `Cannot use --timeout ${value}: expected 1..${MAX_TIMEOUT_SECONDS} seconds`,
    );
  }
  return seconds;
}

/** The contract of `--verify CMD` (one check) or `--contract FILE` (a malformed one: usage). */
async function contractOf(values: VerifyFlags, timeoutSeconds: number): Promise<OutcomeContract> {
  if (values.verify !== undefined) return contractFromCommand(values.verify, timeoutSeconds * 1000);
  try {
    return await loadContract(values.contract!);
  } catch (error) {
    if (error instanceof ContractError) throw new UsageError(error.message);
    throw error;
  }
}

/** The patch's bytes (`-` is stdin); unreadable is a usage error. */
async function readPatch(path: string): Promise<Uint8Array> {
  try {
    return await readInput(path);
  } catch (error) {
    throw new UsageError(`Cannot read patch ${path}: ${(error as Error).message}`);
  }
}

/**
 * Ctrl-C: nothing to stop gracefully; leave at once without leaving the
 * repository locked. Returns what stops listening.
 */
function leaveOnSigint(io: CliIo): () => void {
  const onSigint = () => leaveNow(io);
  try {
    process.on("SIGINT", onSigint);
  } catch {
    // Signals unavailable: Ctrl-C kills the process; the next command takes the dead lock over.
    return () => {};
  }
  return () => process.off("SIGINT", onSigint);
}

/** The progress lines off `--json`: steps, checks and a "still running" line. */
interface PlainProgress {
  say(text: string): void;
  /** The check now running, for the "still running" line. */
  running(current: string): void;
  stop(): void;
}

/** A "still running" line when nothing was said for a while (the clock moves). */
function plainProgress(io: CliIo): PlainProgress {
  const started = Date.now();
  let lastSaid = started;
  let current: string | null = null;
  const say = (text: string) => {
    lastSaid = Date.now();
    io.err(text);
  };
  const every = plainProgressEveryMs();
  const stop = realEvery(Math.max(250, every / 4), () => {
    if (current === null || Date.now() - lastSaid < every) return;
    say(`${current} · still running (${((Date.now() - started) / 1000).toFixed(1)}s)\n`);
  });
  return {
    say,
    running: (text) => {
      current = text;
      say(`${text}\n`);
    },
    stop,
  };
}

/** The options of `verifyPatchInRepo` the flags and the progress decide. */
function verifyOptions(
  values: VerifyFlags,
  io: CliIo,
  progress: PlainProgress | null,
): Omit<VerifyPatchOptions, "patch" | "contract"> {
  return {
    dir: values.dir,
    ...(values.base !== undefined ? { base: values.base } : {}),
    allow: values.allow ?? [],
    forbid: values.forbid ?? [],
    allowSetupNetwork: values["allow-setup-network"],
    ...(values["worktree-root"] !== undefined
      ? { worktreeRoot: resolve(values["worktree-root"]) }
      : {}),
    ...(values["no-baseline"]
      ? { baseline: false }
      : values.baseline !== undefined
      ? { baseline: values.baseline }
      : {}),
    ...(values["tests-editable"] ? { testsEditable: true } : {}),
    ...(io.debug === true ? { onDebug: (line: string) => io.err(`${line}\n`) } : {}),
    // The verdict first; `runCli` waits for the trees' removal before it returns.
    treeRemoval: "after_return",
    onNote: (text) => io.err(`${text}\n`),
    onStep: (step) => progress?.say(`verify: ${step}\n`),
    onCheck: (phase, name) => progress?.running(`${phase}: check "${visibleLine(name)}"`),
  };
}

/** Whether the baseline ran or came from the cache (and which). */
function baselineLine(cached: VerifyPatchOutcome["baselineCached"]): string {
  return cached === null
    ? "baseline: ran\n"
    : `baseline: cached (base ${cached.tree.slice(0, 12)}, from ${
      new Date(cached.at).toISOString()
    })\n`;
}

/** A repository that is not one, or a revision that does not resolve, is a usage error. */
function asUsage(error: unknown): never {
  if (error instanceof GitError && (error.code === "not_a_repo" || error.code === "bad_rev")) {
    throw new UsageError(error.message);
  }
  throw error;
}

/** The `--json` result of a verification refused before it started (no task, tree or log). */
function notStarted(patchDigest: string, u: UnstartableCommand): VerifyPatchOutcome {
  return {
    task: "",
    verdict: "rejected",
    state: "could_not_run",
    exitCode: VERDICTS.could_not_run.exitCode,
    reasons: [u.reason],
    patchDigest,
    base: "",
    violations: [],
    sensitive: [],
    baseline: [],
    checks: [],
    verifiedPatch: null,
    logPath: "",
    details: [u.message],
    verifiedPatchPath: null,
    baselineCached: null,
  };
}
