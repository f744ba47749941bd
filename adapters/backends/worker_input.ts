/**
 * The external worker input contract handed to every subprocess backend (on
 * stdin and in the file named by `VOUCH_TASK_FILE`), and the claims a
 * `command` worker may print as its last JSON line. Both are zod schemas with
 * exported JSON Schemas.
 *
 * @module
 */
import { z } from "zod";
import type { AgentTask } from "./types.ts";
import type { BoundarySchema } from "../schema/mod.ts";
import { lazyRecord } from "../schema/_lazy_record.ts";

/** What a worker must return (as claims; vouch verifies every one of them itself). */
export const MUST_RETURN = [
  "summary",
  "diff",
  "tests_run",
  "commands_run",
  "risks",
  "files_changed",
] as const;

const workerInputObject = z.lazy(() =>
  z.object({
    task_id: z.string().min(1).max(200),
    attempt: z.number().int().min(1),
    goal: z.string().max(200_000),
    feedback: z.string().max(200_000).optional(),
    repo_root: z.string().min(1),
    allowed_roots: z.array(z.string()),
    forbidden_paths: z.array(z.string()),
    network: z.literal("deny"),
    secrets: z.literal("none"),
    max_seconds: z.number().int().positive(),
    max_output_mb: z.number().positive(),
    must_return: z.array(z.enum(MUST_RETURN)),
  }).strict()
);

/** The worker input contract. */
export interface WorkerInput {
  /** The task's id. */
  task_id: string;
  /** Attempt number, from 1. */
  attempt: number;
  /** What the worker must achieve. */
  goal: string;
  /** Why the previous attempt was rejected, if any. */
  feedback?: string | undefined;
  /** The task's worktree: the only place the worker may write. */
  repo_root: string;
  /** Globs of paths the patch may touch. */
  allowed_roots: string[];
  /** Globs of paths the patch may not touch. */
  forbidden_paths: string[];
  /** Network access: always denied. */
  network: "deny";
  /** Secrets handed to the worker: none. */
  secrets: "none";
  /** Wall-clock budget, seconds. */
  max_seconds: number;
  /** Output budget, MiB. */
  max_output_mb: number;
  /** What the worker must return (as claims). */
  must_return: (typeof MUST_RETURN)[number][];
}

/** zod schema of the worker input contract. */
export const WorkerInputSchema: BoundarySchema<WorkerInput> = workerInputObject;

/**
 * Builds the worker input for a task. `repo_root` is the task's worktree: the
 * only place the worker may write.
 *
 * @example
 * ```ts
 * import { workerInputFor } from "./worker_input.ts";
 * const input = workerInputFor({
 *   taskId: "t1", attempt: 1, goal: "fix it", worktree: "/tmp/wt", allowedRoots: ["src/**"],
 *   forbiddenPaths: [".github/**"], maxSeconds: 60, maxOutputMb: 10,
 * });
 * if (input.network !== "deny") throw new Error();
 * ```
 */
export function workerInputFor(task: AgentTask): WorkerInput {
  return {
    task_id: task.taskId,
    attempt: task.attempt,
    goal: task.goal,
    ...(task.feedback !== undefined ? { feedback: task.feedback } : {}),
    repo_root: task.worktree,
    allowed_roots: [...task.allowedRoots],
    forbidden_paths: [...task.forbiddenPaths],
    network: "deny",
    secrets: "none",
    max_seconds: Math.max(1, Math.ceil(task.maxSeconds)),
    max_output_mb: task.maxOutputMb,
    must_return: [...MUST_RETURN],
  };
}

/** JSON Schema (draft 2020-12) of the worker input contract, for worker authors (computed on first read). */
export const WORKER_INPUT_JSON_SCHEMA: Record<string, unknown> = lazyRecord(() =>
  z.toJSONSchema(workerInputObject) as Record<string, unknown>
);

const StringList = z.lazy(() => z.array(z.string().max(10_000)).max(1000));

const workerClaimsObject = z.lazy(() =>
  z.object({
    summary: z.string().max(100_000).optional(),
    done: z.boolean().optional(),
    status: z.string().max(100).optional(),
    diff: z.string().optional(),
    tests_run: StringList.optional(),
    commands_run: StringList.optional(),
    risks: StringList.optional(),
    files_changed: StringList.optional(),
  })
);

/** A worker's claims. Never evidence. */
export interface WorkerClaims {
  /** What the worker says it did. */
  summary?: string | undefined;
  /** Whether the worker says it is done. */
  done?: boolean | undefined;
  /** A status word (done/completed/success/ok count as done). */
  status?: string | undefined;
  /** The diff the worker says it made. */
  diff?: string | undefined;
  /** Tests it says it ran. */
  tests_run?: string[] | undefined;
  /** Commands it says it ran. */
  commands_run?: string[] | undefined;
  /** Risks it names. */
  risks?: string[] | undefined;
  /** Files it says it changed. */
  files_changed?: string[] | undefined;
}

/**
 * zod schema of a worker's claims (its optional last JSON line). Unknown
 * fields are tolerated and dropped.
 */
export const WorkerClaimsSchema: BoundarySchema<WorkerClaims> = workerClaimsObject;

// The hand-written types above are exactly what the schemas parse to (checked by the compiler).
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true
  : false;
type AssertTrue<T extends true> = T;
type _WorkerTypesAreExact = [
  AssertTrue<Same<z.infer<typeof workerInputObject>, WorkerInput>>,
  AssertTrue<Same<z.infer<typeof workerClaimsObject>, WorkerClaims>>,
];

/** JSON Schema of the worker claims line (computed on first read). */
export const WORKER_CLAIMS_JSON_SCHEMA: Record<string, unknown> = lazyRecord(() =>
  z.toJSONSchema(workerClaimsObject) as Record<string, unknown>
);

/**
 * Whether claims say "done": `done: true`, or a status of done/completed/success/ok.
 *
 * @example
 * ```ts
 * import { claimsSayDone } from "./worker_input.ts";
 * if (!claimsSayDone({ status: "completed" })) throw new Error();
 * ```
 */
export function claimsSayDone(claims: WorkerClaims): boolean {
  if (claims.done !== undefined) return claims.done;
  const s = claims.status?.toLowerCase();
  return s === "done" || s === "completed" || s === "success" || s === "ok";
}
