/**
 * Coding backends: the `AgentBackend` contract, the worker input contract,
 * zod-validated stream parsers for Codex CLI and Claude Code, and the
 * `command`, `codex`, `claude` and `fn` backends. Everything a backend
 * reports is a claim; backends must never decide a verdict, and nothing in a
 * transcript may change policy.
 *
 * @module
 */
export * from "./errors.ts";
export * from "./types.ts";
export * from "./line_splitter.ts";
export * from "./json_line.ts";
export * from "./worker_input.ts";
export * from "./codex_stream.ts";
export * from "./claude_stream.ts";
export * from "./transcript.ts";
export * from "./prompt.ts";
export * from "./result.ts";
export * from "./subprocess.ts";
export * from "./agent_cli.ts";
export * from "./codex_backend.ts";
export * from "./claude_backend.ts";
export * from "./command_backend.ts";
export * from "./fn_backend.ts";
export * from "./openai_backend.ts";
export * from "./probe.ts";

// Types the backends name in their options and results (exported so the reference links them).
export type { UnverifiedPatch } from "../verified_patch/verified_patch.ts";
export type { CapturedStream } from "../process/capture.ts";
export type { SandboxProfile } from "../sandbox/profile.ts";
export type { ProcessResult, SpawnError } from "../process/types.ts";
export type {
  BwrapSandbox,
  NoSandbox,
  RootMount,
  SandboxKind,
  SandboxLayer,
} from "../sandbox/profile.ts";
export type { LimitKind, SandboxLimits } from "../sandbox/limits.ts";
export type { BoundarySchema, SchemaIssue, SchemaParseResult } from "../schema/mod.ts";
export type { VouchError } from "../../kernel/errors/mod.ts";
