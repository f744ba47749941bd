/**
 * The contract file as written (`vouch.contract.json`), as hand-written types;
 * `schema.ts` checks at compile time that its zod schema parses to exactly these.
 *
 * @module
 */
import type { TestFormat } from "../../kernel/contract/types.ts";

/** A command: an argv array (spawned directly) or a shell string (run as `sh -c`). */
export type ContractFileRun = string | string[];

/** What a check's command must show. */
export interface ContractFileExpect {
  /** The command must exit 0 (default true). */
  exitZero?: boolean | undefined;
  /** Substring(s) of stdout or stderr; `$json:<pointer>=<json>` compares a JSON value on stdout. */
  outputContains?: string | string[] | undefined;
}

/** A differential check: compared with a baseline capture. */
export interface ContractFileDifferential {
  /** Name of a `baseline: true` check. */
  against: string;
  /** How the output must move against the baseline. */
  expect: "changed" | "unchanged" | { deltaWithin: [number | null, number | null] };
}

/** The test output formats a check may declare: the kernel's {@linkcode TestFormat}. */
export type ContractFileTestFormat = TestFormat;

/** One check of a contract file, as written. */
export interface ContractFileCheck {
  /** The check's name (printable, unique in the file). */
  name: string;
  /** The command to run. */
  run: ContractFileRun;
  /** What the command must show. */
  expect?: ContractFileExpect | undefined;
  /** Timeout in seconds. */
  timeout?: number | undefined;
  /** Capture-only: run on the unmodified tree. */
  baseline?: boolean | undefined;
  /** Compare against a baseline check. */
  differential?: ContractFileDifferential | undefined;
  /** Parse failing tests in this output format. */
  tests?: ContractFileTestFormat | undefined;
  /** Test ids that must fail on the base and pass after the change. */
  failToPass?: string[] | undefined;
  /** Test ids that must pass on the base and after the change. */
  passToPass?: string[] | undefined;
}

/** Dependency installation in the clean tree, as written. */
export interface ContractFileSetup {
  /** Commands run in order in the clean tree. */
  commands: ContractFileRun[];
  /** Seconds per command. */
  timeout?: number | undefined;
  /** Whether setup may use the network. */
  network?: "deny" | "allow" | undefined;
}

/** Resource limits of a sandboxed process tree, as written. */
export interface ContractFileLimits {
  /** Resident memory of the process tree, MiB. */
  memoryMb?: number | undefined;
  /** Processes alive at once. */
  processes?: number | undefined;
  /** Largest file it may write, MiB. */
  fileSizeMb?: number | undefined;
  /** Size of its private /tmp and /dev/shm, MiB. */
  tmpMb?: number | undefined;
  /** How much it may grow its tree, MiB. */
  diskMb?: number | undefined;
  /** CPU time of each process, seconds. */
  cpuSeconds?: number | undefined;
}

/** What the checks' sandbox must also show, and its limits, as written. */
export interface ContractFileSandbox {
  /** Absolute paths outside the tree, mounted read-only. */
  readOnly?: string[] | undefined;
  /** Limits of each check. */
  limits?: ContractFileLimits | undefined;
  /** Limits of the agent. */
  agentLimits?: ContractFileLimits | undefined;
}

/** The contract file as written (after validation). */
export interface ContractFile {
  /** JSON Schema reference for editors. */
  $schema?: string | undefined;
  /** File format version. */
  version?: 1 | undefined;
  /** What the contract is about. */
  description?: string | undefined;
  /** The checks (at least one). */
  checks: ContractFileCheck[];
  /** Globs of paths a patch may not touch. */
  protect?: string[] | undefined;
  /** Dependency installation before the checks. */
  setup?: ContractFileSetup | undefined;
  /** The checks' sandbox. */
  sandbox?: ContractFileSandbox | undefined;
  /** The patch may redefine the tests. */
  testsEditable?: boolean | undefined;
}
