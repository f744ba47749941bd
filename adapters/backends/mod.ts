/**
 * Coding backends: the `AgentBackend` contract, the worker input contract,
 * zod-validated stream parsers for Codex CLI and Claude Code, and the
 * `command`, `codex`, `claude` and `fn` backends. Everything a backend
 * reports is a claim; backends must never decide a verdict, and nothing in a
 * transcript may change policy.
 *
 * The exports below are an explicit list: what an embedder needs and every type those names
 * mention (so `deno doc --lint` finds no reference to an unexported type). Helpers used inside vouch
 * are imported from their module paths and are not part of the API; `tests/api/exports.json`
 * holds the list.
 *
 * @module
 */
export { acpBackend, type AcpBackendConfig, type PermissionQuestion } from "./acp_backend.ts";
export type { AcpAuthChoice } from "./acp_presets.ts";
export type { McpStdioServer } from "./mcp_config.ts";
export { agentCliBackend, type StreamOutcome, type StreamParser } from "./agent_cli.ts";
export { claudeBackend, type ClaudeBackendConfig } from "./claude_backend.ts";
export { type ClaudeOutcome, ClaudeStreamParser, type StopRequest } from "./claude_stream.ts";
export { DEFAULT_CLAUDE_ALLOWED_TOOLS, DEFAULT_CLAUDE_DISALLOWED_TOOLS } from "./claude_tools.ts";
export { codexBackend, type CodexBackendConfig } from "./codex_backend.ts";
export { type CodexOutcome, CodexStreamParser } from "./codex_stream.ts";
export { commandBackend, type CommandBackendConfig, TASK_FILE_ENV } from "./command_backend.ts";
export { BackendError, type BackendErrorCode } from "./errors.ts";
export {
  fnBackend,
  type FnWorker,
  type FnWorkerContext,
  type FnWorkerOutput,
} from "./fn_backend.ts";
export type { StreamLine } from "./line_splitter.ts";
export { openaiBackend, type OpenAiBackendConfig } from "./openai_backend.ts";
export { type AgentCliProbe, probeAgentCli, probeAgentClis } from "./probe.ts";
export type { SubprocessConfig } from "./subprocess.ts";
export type { SecretMasker } from "./transcript.ts";
export type {
  AgentBackend,
  AgentDecision,
  AgentTask,
  BackendCapabilities,
  BackendContext,
  BackendEvent,
  BackendFailure,
  BackendResult,
  BackendStart,
  BackendStatus,
  BackendUsage,
  ProtocolIssueCode,
  TranscriptRef,
} from "./types.ts";
export {
  MUST_RETURN,
  WORKER_CLAIMS_JSON_SCHEMA,
  WORKER_INPUT_JSON_SCHEMA,
  type WorkerClaims,
  WorkerClaimsSchema,
  type WorkerInput,
  WorkerInputSchema,
} from "./worker_input.ts";
export type { SandboxLimits } from "../sandbox/limits.ts";
export type {
  BwrapSandbox,
  NoSandbox,
  RootMount,
  SandboxLayer,
  SandboxProfile,
} from "../sandbox/profile.ts";
export type { BoundarySchema, SchemaIssue, SchemaParseResult } from "../schema/mod.ts";
export type { UnverifiedPatch } from "../verified_patch/verified_patch.ts";
