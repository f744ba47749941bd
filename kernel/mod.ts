/**
 * The trusted core of vouch: the deterministic lifecycle reducer and the pure
 * verification primitives (diff parser, path confinement, globs, scope,
 * contract judgement, the test oracle and the patch's oracle split).
 *
 * Rules: imports nothing outside `kernel/`; uses no `Deno.*`, no I/O, no clock,
 * no randomness. Time, ids and results arrive as events; a digest or a faster
 * WASM implementation is passed in through interfaces defined here.
 *
 * The exports below are an explicit list: what an embedder needs and every type those names
 * mention (so `deno doc --lint` finds no reference to an unexported type). Helpers used inside vouch
 * are imported from their module paths and are not part of the API; `tests/api/exports.json`
 * holds the list.
 *
 * @module
 */
export type {
  BundleFacts,
  FileFailureCode,
  FileObservation,
  ManifestObservation,
} from "./bundle/facts.ts";
export { judgeBundle, unjudgeableResult } from "./bundle/judge.ts";
export {
  type BundleFileRole,
  type BundleProblem,
  type BundleRead,
  type BundleReadPlan,
  MANIFEST_LOCATOR,
  MAX_MANIFEST_BYTES,
  planBundleReads,
} from "./bundle/read_plan.ts";
export { BUNDLE_REASONS, type BundleReasonCode } from "./bundle/reasons.ts";
export type {
  CheckDiagnostic,
  DeclaredArtifact,
  DeclaredLog,
  EvaluatorPlan,
  EvaluatorPlanCommon,
  EvaluatorPlanV01,
  EvaluatorPlanV02,
  EvaluatorPolicy,
  Recommendation,
  ResultManifest,
  Sha256Digest,
  VerificationCheck,
  VerificationCheckStatus,
  VerificationEvidence,
  VerificationFinding,
  VerificationResult,
  WorkerStatus,
  WorkUnit,
  WorkUnitValidator,
} from "./bundle/types.ts";
export {
  deriveTestLists,
  type DifferentialClass,
  type DifferentialOffence,
  judgeTestDifferential,
  type TestDifferential,
  type TestOutcome,
  type TestOutcomeStatus,
} from "./contract/differential.ts";
export {
  type BaselineJudgement,
  type BaselineOptions,
  judgeBaseline,
  judgeCheck,
  judgeContract,
} from "./contract/judge.ts";
export { gradeTestLists } from "./contract/test_lists.ts";
export type {
  BaselineCapture,
  BaselineDiagnostic,
  BaselineDiagnosticCode,
  CheckJudgement,
  CheckObservation,
  CheckReason,
  CheckReasonCode,
  CheckRun,
  CheckStatus,
  ContractCheck,
  ContractJsonValue,
  ContractJudgement,
  ContractLimits,
  ContractSandbox,
  ContractSetup,
  Differential,
  DifferentialExpect,
  Expectation,
  ListedTest,
  ListedTestStatus,
  OutcomeContract,
  TestFormat,
  TestListName,
  TestLists,
  TestReport,
} from "./contract/types.ts";
export { type ChangedPathEntry, changedPaths } from "./diff/changed_paths.ts";
export { DIFF_PARSE_ERROR_CODES, DiffParseError, type DiffParseErrorCode } from "./diff/error.ts";
export {
  DEFAULT_DIFF_LIMITS,
  parseGitDiff,
  tryParseGitDiff,
  type TryParseGitDiffResult,
} from "./diff/parse.ts";
export type { RawDiffEntry } from "./diff/raw.ts";
export type {
  BinaryHunk,
  BinaryKind,
  BinaryPatch,
  DiffFile,
  DiffHeaderKind,
  DiffHunk,
  DiffLine,
  DiffLineKind,
  DiffLineScanner,
  DiffScanSession,
  DiffStatus,
  GitDiff,
  HunkScan,
  ParseGitDiffOptions,
} from "./diff/types.ts";
export type { Sha256 } from "./digest.ts";
export { ERROR_CODE_PATTERN, isVouchError, VouchError } from "./errors/mod.ts";
export { GLOB_ERROR_CODES, GlobError, type GlobErrorCode } from "./glob/error.ts";
export {
  compileGlobs,
  type CompileGlobsOptions,
  type GlobSet,
  MAX_GLOB_PATTERNS,
} from "./glob/glob_set.ts";
export { type GlobEngine, type GlobProgramRunner, typescriptGlobEngine } from "./glob/match.ts";
export { MAX_PATTERN_LENGTH } from "./glob/parse.ts";
export {
  type AppendLogAction,
  type CancelEffectAction,
  type CapabilityToken,
  type CheckScopeAction,
  type CleanupAction,
  type CreateWorktreeAction,
  type ExtractDiffAction,
  type IntegrateAction,
  type KernelAction,
  type KernelActionBase,
  type KernelAuditRecord,
  MAX_ACTIONS_PER_STEP,
  type MintVerifiedPatchAction,
  type NotifyAction,
  type RequestApprovalAction,
  type RoundFeedback,
  type RunBackendAction,
  type RunContractAction,
  type StartBackendAction,
} from "./lifecycle/actions.ts";
export {
  ACTION_KINDS,
  BACKEND_OUTCOMES,
  type BackendOutcome,
  EVENT_KINDS,
  GATED_EFFECTS,
  type GatedEffect,
  isTerminalStatus,
  LIFECYCLE_REASONS,
  type LifecycleReason,
  NOTIFY_LEVELS,
  type NotifyLevel,
  POLICY_DECISIONS,
  type PolicyDecision,
  REVERSIBILITIES,
  type Reversibility,
  RISK_PROFILES,
  type RiskProfile,
  ROUND_CHECK_OUTCOMES,
  type RoundCheckOutcome,
  SENSITIVE_CLASSES,
  type SensitiveClass,
  TASK_STATUSES,
  type TaskStatus,
  TERMINAL_STATUSES,
} from "./lifecycle/codes.ts";
export type {
  ApprovalDeniedEvent,
  ApprovalGrantedEvent,
  BackendFinishedEvent,
  BackendReadyEvent,
  BackendStartedEvent,
  BaselineResultEvent,
  BudgetExtendedEvent,
  CleanupDoneEvent,
  EffectFailedEvent,
  EffectResultEventBase,
  IntegratedEvent,
  KernelEvent,
  KernelEventBase,
  KillRequestedEvent,
  PatchExtractedEvent,
  PatchMintedEvent,
  RoundCheckResult,
  ScopeCheckedEvent,
  TaskBudget,
  TaskSubmittedEvent,
  TimerTickEvent,
  VerificationResultEvent,
  WorktreeFailedEvent,
  WorktreeReadyEvent,
} from "./lifecycle/events.ts";
export {
  FINAL_STATE_OF,
  FINAL_STATES,
  type FinalState,
  STOP_REASONS,
  type StopReason,
  type TaskOutcome,
  taskOutcome,
} from "./lifecycle/outcome.ts";
export {
  defaultPolicy,
  evaluateGatedEffect,
  type PolicyVerdict,
  sensitiveDenied,
} from "./lifecycle/policy.ts";
export type { PolicySnapshot } from "./lifecycle/policy_types.ts";
export {
  type KernelReplayResult,
  replayEvents,
  type ReplayOptions,
  type ReplayStep,
} from "./lifecycle/replay.ts";
export {
  type ApprovalGrant,
  type BudgetUsed,
  type KernelState,
  PENDING_KINDS,
  type PendingApproval,
  type PendingEffect,
  type PendingKind,
  type TaskRecord,
} from "./lifecycle/state.ts";
export { initialKernelState, step, type StepResult } from "./lifecycle/step.ts";
export {
  BACKEND_FAULT_REASONS,
  ENTRY,
  type Entry,
  ENTRY_ACTIONS,
  type EntryAction,
  NEW_TASK,
  type Transition,
  type TransitionRow,
  transitionRows,
  TRANSITIONS,
  type TransitionTable,
  type TransitionTrigger,
  TRIGGERS,
} from "./lifecycle/transitions.ts";
export { KERNEL_LIFECYCLE_VERSION } from "./lifecycle/version.ts";
export { oracleSet } from "./oracle/oracle_set.ts";
export { type KeyTexts, type OracleTouch, type PatchOracle, patchOracle } from "./oracle/patch.ts";
export { type PatchSplit, splitPatch } from "./oracle/split.ts";
export { type TestKeysChange, testKeysChange } from "./oracle/test_keys.ts";
export {
  ORACLE_RUNNERS,
  type OracleBaselineTest,
  type OracleEntry,
  type OracleInput,
  type OracleRunner,
  type OracleScope,
  type OracleSet,
} from "./oracle/types.ts";
export {
  MAX_COMPONENT_BYTES,
  MAX_PATH_BYTES,
  PATH_REJECTION_CODES,
  type PathRejectionCode,
} from "./paths/codes.ts";
export { confinePath, type ConfineResult } from "./paths/confine_path.ts";
export { pathKey } from "./paths/path_key.ts";
export {
  checkScope,
  type CompiledScopeRules,
  compileScopeRules,
  type ScopeFileSummary,
  type ScopeReport,
  type ScopeRules,
  type ScopeViolation,
} from "./scope/check_scope.ts";
export {
  type ClassifiableFile,
  type ClassifiedFile,
  classifyPatch,
  classifyPath,
  type PatchClassification,
} from "./scope/classify.ts";
export { SCOPE_VIOLATION_CODES, type ScopeViolationCode } from "./scope/codes.ts";
export {
  APPLIED_VIOLATION_CODES,
  type AppliedJudgement,
  judgeAppliedPatch,
} from "./scope/judge_applied.ts";
export {
  judgePatch,
  type JudgePatchOptions,
  PATCH_VIOLATION_CODES,
  type PatchJudgement,
  type PatchParseFailure,
  type PatchRules,
  type PatchViolation,
} from "./scope/judge_patch.ts";
export {
  type CompiledToolAccessRules,
  compileToolAccessRules,
  judgePermission,
  judgeToolAccess,
  PERMISSION_KINDS,
  type PermissionVerdict,
  TOOL_ACCESS_REFUSALS,
  type ToolAccess,
  type ToolAccessRefusal,
  type ToolAccessRules,
  type ToolAccessVerdict,
} from "./scope/judge_tool_access.ts";
