/**
 * Settings of the native backend ({@linkcode OpenAiBackendConfig}).
 *
 * @module
 */
import type { PolicySnapshot } from "../../kernel/lifecycle/policy_types.ts";
import type { SandboxProfile } from "../sandbox/profile.ts";

/** Settings of `openaiBackend`. */
export interface OpenAiBackendConfig {
  /** The model name sent with every request. */
  readonly model: string;
  /** The API root, e.g. `http://127.0.0.1:8080/v1` (requests go to `<baseUrl>/chat/completions`). */
  readonly baseUrl: string;
  /** The bearer credential (read by the caller from a named variable), or null for none. */
  readonly apiKey: string | null;
  /** Where `run_command` runs (the agent sandbox). @default no sandbox */
  readonly sandbox?: SandboxProfile;
  /** Policy that judges file access. @default defaultPolicy() */
  readonly policy?: PolicySnapshot;
  /** Model turns per round before the loop stops. @default 30 */
  readonly maxTurns?: number;
  /** Retries of one request on 429/5xx/network errors. @default 3 */
  readonly maxRetries?: number;
  /** First retry backoff, ms (doubled each retry). @default 500 */
  readonly backoffMs?: number;
  /** Tokens (input + output) one round may spend; past it the round stops. @default unlimited */
  readonly maxTokens?: number;
  /** Time limit of one request, ms. @default 300000 */
  readonly requestTimeoutMs?: number;
  /** Time limit of one `run_command`, ms. @default 120000 */
  readonly commandTimeoutMs?: number;
  /**
   * Ask for streamed answers (`stream: true` with `stream_options.include_usage`), as real
   * clients do; a server answering JSON anyway is read as JSON, one answering 400 is asked again
   * without streaming. @default true
   */
  readonly stream?: boolean;
  /** How the model is reached (`model_net.ts` under `--deny-net`, or a test double); default `fetch`. */
  readonly fetch?: typeof fetch;
}
