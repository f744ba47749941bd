import { VouchError } from "../../kernel/errors/mod.ts";
import { contractJsonSchema } from "../contract/schema.ts";
import { parseContractText } from "../contract/load.ts";
import type { OutcomeContract } from "../../kernel/contract/types.ts";
import type { VerifyCommand } from "../verify_command/detect.ts";
import { intentTargetsTests } from "./intent.ts";

/** What the generator knows about the repository. */
export interface RepoSummary {
  /** Free text: layout, languages, notable files. */
  readonly text: string;
  /** The detected or given verify command, if any. */
  readonly verify: VerifyCommand | null;
  /** Failing tests observed on the unmodified tree (filled by routing for test-targeting intents). */
  readonly failingTests?: readonly string[];
}

/** One request to the injected generator. */
export interface GenerateRequest {
  /** The task intent. */
  readonly intent: string;
  /** The repository summary (with observed failures folded in). */
  readonly summary: RepoSummary;
  /** JSON Schema the answer must satisfy. */
  readonly schema: Record<string, unknown>;
  /** 1-based attempt number. */
  readonly attempt: number;
  /** The previous (invalid) answer, on repair attempts. */
  readonly previous: string | null;
  /** Validation errors of the previous answer, one `path: message` per line. */
  readonly errors: readonly string[];
  /** The model to use for this attempt (`null` = the generator's default). */
  readonly model: string | null;
}

/** An injected async generator returning contract JSON text (code fences tolerated). */
export type ContractGenerator = (request: GenerateRequest) => Promise<string>;

/** Observes the failing tests on the unmodified tree (used for test-targeting intents). */
export type FailureObserver = (verify: VerifyCommand) => Promise<readonly string[]>;

/** Options for {@linkcode deriveContract}. */
export interface DeriveOptions {
  /** Attempts in the validate -> repair loop (default 3, at most 10). */
  readonly maxAttempts?: number;
  /** Models per attempt: attempt n uses `models[min(n-1, len-1)]` (ask for a different model on retry). */
  readonly models?: readonly string[];
  /** Observes real failures first when the intent targets tests. */
  readonly observeFailures?: FailureObserver;
}

/** One generator attempt. */
export interface DeriveAttempt {
  /** 1-based. */
  readonly attempt: number;
  /** Model asked for. */
  readonly model: string | null;
  /** Validation errors (empty when accepted). */
  readonly errors: readonly string[];
}

/** Result of {@linkcode deriveContract}. */
export interface DerivedContract {
  /** The validated contract. */
  readonly contract: OutcomeContract;
  /** Where it came from. */
  readonly source: "generator" | "verify-command";
  /** The generator attempts. */
  readonly attempts: readonly DeriveAttempt[];
  /** The summary used (with observed failures folded in). */
  readonly summary: RepoSummary;
  /** Whether the intent targets tests (then the baseline must fail: pass as `requireFailingBaseline`). */
  readonly targetsTests: boolean;
}

/** Stable codes of {@linkcode DeriveError}. */
export type DeriveErrorCode =
  | "derive_exhausted"
  | "derive_no_verify_command"
  | "derive_generator_failed";

/** A contract could not be derived. */
export class DeriveError extends VouchError<DeriveErrorCode> {
  /** The attempts made. */
  readonly attempts: readonly DeriveAttempt[];
  constructor(code: DeriveErrorCode, message: string, attempts: readonly DeriveAttempt[] = []) {
    super(code, message);
    this.attempts = attempts;
  }
}

/**
 * The JSON object inside a model answer: the body of a ```json fence if
 * present, else the text from the first `{` to the last `}`.
 *
 * @example
 * ```ts
 * import { extractJsonText } from "./derive.ts";
 * if (extractJsonText('Here:\n```json\n{"a":1}\n```') !== '{"a":1}') throw new Error();
 * ```
 */
export function extractJsonText(answer: string): string {
  const fence = /```(?:json)?\s*\n([\s\S]*?)```/.exec(answer);
  if (fence) return fence[1]!.trim();
  const start = answer.indexOf("{");
  const end = answer.lastIndexOf("}");
  return start !== -1 && end > start ? answer.slice(start, end + 1) : answer.trim();
}

/**
 * The contract that needs no model: the verify command must pass (with its
 * failing-test parser, so the inconclusive guard applies).
 *
 * @example
 * ```ts
 * import { contractFromVerifyCommand } from "./derive.ts";
 * const c = contractFromVerifyCommand({ run: { argv: ["cargo", "test"] }, source: "Cargo.toml", tests: "cargo" });
 * if (c.checks[0]?.tests !== "cargo") throw new Error();
 * ```
 */
export function contractFromVerifyCommand(
  verify: VerifyCommand,
  timeoutMs = 600_000,
): OutcomeContract {
  const line = "argv" in verify.run ? verify.run.argv.join(" ") : verify.run.shell;
  return {
    description: `The verify command (${verify.source}) passes: ${line}`,
    checks: [{
      name: "verify",
      run: verify.run,
      expect: [{ kind: "exit-zero" }],
      timeoutMs,
      baseline: false,
      differential: null,
      tests: verify.tests,
    }],
    protect: [],
  };
}

/**
 * Derives an outcome contract for `intent`. With a generator: a bounded
 * validate -> repair loop (the validation errors and the previous answer are
 * fed back; `models` picks a different model per retry). Without one: the
 * contract of the verify command. Intents that target tests first observe
 * the real failures (when `observeFailures` is given) and fold them into the
 * summary. Throws {@linkcode DeriveError}.
 *
 * @example
 * ```ts
 * import { deriveContract } from "./derive.ts";
 * const gen = async () => '{"checks":[{"name":"t","run":["deno","test"],"tests":"deno"}]}';
 * const d = await deriveContract("add a flag", { text: "", verify: null }, gen);
 * if (d.contract.checks[0]?.name !== "t" || d.attempts.length !== 1) throw new Error();
 * ```
 */
export async function deriveContract(
  intent: string,
  repoSummary: RepoSummary,
  generate: ContractGenerator | null,
  options: DeriveOptions = {},
): Promise<DerivedContract> {
  const targetsTests = intentTargetsTests(intent);
  let summary = repoSummary;
  if (targetsTests && options.observeFailures && summary.verify !== null) {
    const failing = await options.observeFailures(summary.verify);
    summary = { ...summary, failingTests: [...failing] };
  }
  if (generate === null) {
    if (summary.verify === null) {
      throw new DeriveError(
        "derive_no_verify_command",
        "Cannot derive a contract: no generator and no verify command (pass --verify)",
      );
    }
    return {
      contract: contractFromVerifyCommand(summary.verify),
      source: "verify-command",
      attempts: [],
      summary,
      targetsTests,
    };
  }
  const maxAttempts = Math.min(10, Math.max(1, Math.floor(options.maxAttempts ?? 3)));
  const schema = contractJsonSchema();
  const attempts: DeriveAttempt[] = [];
  let previous: string | null = null;
  let errors: readonly string[] = [];
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const models = options.models ?? [];
    const model = models.length === 0 ? null : models[Math.min(attempt - 1, models.length - 1)]!;
    let answer: string;
    try {
      answer = await generate({ intent, summary, schema, attempt, previous, errors, model });
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      attempts.push({ attempt, model, errors: [`(generator): ${detail}`] });
      throw new DeriveError(
        "derive_generator_failed",
        `Cannot derive a contract: generator failed: ${detail}`,
        attempts,
      );
    }
    const parsed = parseContractText(extractJsonText(String(answer)));
    if (parsed.ok) {
      attempts.push({ attempt, model, errors: [] });
      return { contract: parsed.contract, source: "generator", attempts, summary, targetsTests };
    }
    errors = parsed.error.issues;
    previous = String(answer);
    attempts.push({ attempt, model, errors });
  }
  throw new DeriveError(
    "derive_exhausted",
    `Cannot derive a contract: ${maxAttempts} attempt(s) produced no valid contract; last errors: ${
      errors.join("; ")
    }`,
    attempts,
  );
}
