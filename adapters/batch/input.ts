/**
 * Reading the batch inputs: the tasks file (JSONL) and the predictions file
 * (SWE-bench's format: a JSON array or JSONL). Every line is validated with
 * zod; a bad line is a {@linkcode BatchInputError} naming the file and line.
 *
 * @module
 */
import { dirname, resolve } from "node:path";
import { readFile } from "node:fs/promises";
import { VouchError } from "../../kernel/errors/mod.ts";
import type { OutcomeContract } from "../../kernel/contract/types.ts";
import { canonicalDigest } from "../canonical_json/canonical_json.ts";
import { parseContract } from "../contract/load.ts";
import { sha256Hex } from "../digest/sha256.ts";
import { parseJsonText } from "../backends/json_line.ts";
import {
  type BatchTaskLine,
  batchTaskSchema,
  type Prediction,
  predictionSchema,
} from "./schema.ts";
import { isSwebenchRow, type SwebenchDefaults, swebenchLine } from "./_swebench_row.ts";

export type { SwebenchDefaults } from "./_swebench_row.ts";

/** Stable codes of {@linkcode BatchInputError}. */
export type BatchInputErrorCode =
  | "input_unreadable"
  | "tasks_invalid"
  | "predictions_invalid"
  | "duplicate_task"
  | "duplicate_prediction";

/**
 * A tasks or predictions file that cannot be used.
 *
 * @example
 * ```ts
 * import { equal, ok } from "node:assert/strict";
 * import { BatchInputError, readTasks } from "./input.ts";
 * const error = await readTasks("/nonexistent/tasks.jsonl").catch((e: unknown) => e);
 * ok(error instanceof BatchInputError);
 * equal(error.code, "input_unreadable");
 * ```
 */
export class BatchInputError extends VouchError<BatchInputErrorCode> {}

/** A task ready to verify against. */
export interface BatchTask {
  /** The task id (`instance_id` in predictions). */
  readonly id: string;
  /** Absolute repository directory. */
  readonly repo: string;
  /** The base revision as written. */
  readonly base: string;
  /** The contract (from `verify` or `contract`). */
  readonly contract: OutcomeContract;
  /** The test patch applied on top of the base, if any. */
  readonly testPatch: string | null;
  /** Allowed globs. */
  readonly allow: readonly string[];
  /** Extra forbidden globs. */
  readonly forbid: readonly string[];
  /** `sha256:` of the canonical task line (part of every candidate's resume key). */
  readonly digest: string;
  /** The line as validated and the tasks file's directory (what a queue job carries). */
  readonly source: { readonly line: BatchTaskLine; readonly dir: string };
}

/** What {@linkcode readTasks} returns. */
export interface TasksFile {
  /** Tasks in file order. */
  readonly tasks: readonly BatchTask[];
  /** `sha256:` over the task digests in order. */
  readonly digest: string;
}

async function readText(path: string): Promise<string> {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(await readFile(path));
  } catch (error) {
    throw new BatchInputError(
      "input_unreadable",
      `Cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

function jsonLines(text: string): { line: number; value: unknown; error: string | null }[] {
  const out: { line: number; value: unknown; error: string | null }[] = [];
  text.split("\n").forEach((raw, i) => {
    if (raw.trim() === "") return;
    const json = parseJsonText(raw);
    out.push({
      line: i + 1,
      value: json.ok ? json.value : null,
      error: json.ok ? null : json.error,
    });
  });
  return out;
}

function issues(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  return error.issues.slice(0, 5).map((i) =>
    `${i.path.length ? i.path.map(String).join(".") : "(root)"}: ${i.message}`
  ).join("; ");
}

/** The contract a task line stands for (its test patch's paths are protected separately). */
function taskContract(line: BatchTaskLine, where: string): OutcomeContract {
  const file = line.contract ?? {
    description: `\`${line.verify!.command}\``,
    checks: [{
      name: "tests",
      run: line.verify!.command,
      ...(line.verify!.tests !== undefined ? { tests: line.verify!.tests } : {}),
      ...(line.verify!.failToPass !== undefined ? { failToPass: line.verify!.failToPass } : {}),
      ...(line.verify!.passToPass !== undefined ? { passToPass: line.verify!.passToPass } : {}),
      ...(line.verify!.timeout !== undefined ? { timeout: line.verify!.timeout } : {}),
    }],
  };
  const parsed = parseContract(file);
  if (!parsed.ok) {
    throw new BatchInputError(
      "tasks_invalid",
      `Cannot use ${where}: ${parsed.error.issues.join("; ") || parsed.error.message}`,
    );
  }
  return parsed.contract;
}

/**
 * Reads and validates a tasks file; `repo` paths resolve against its directory.
 * A line in SWE-bench's dataset shape (`instance_id`, `repo` as owner/name,
 * `base_commit`, `test_patch`, `FAIL_TO_PASS`/`PASS_TO_PASS`) is read as a
 * task too, its repository found under `swebench.repos` (DIR/owner__name or DIR/name).
 *
 * @example
 * ```ts
 * import { mkdtempSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { equal } from "node:assert/strict";
 * import { readTasks } from "./input.ts";
 * const file = join(mkdtempSync(join(tmpdir(), "vouch-")), "tasks.jsonl");
 * writeFileSync(file, JSON.stringify({ id: "t1", repo: ".", base: "HEAD", verify: { command: "true" } }) + "\n");
 * const { tasks } = await readTasks(file);
 * equal(tasks[0]?.contract.checks[0]?.name, "tests");
 * ```
 */
export async function readTasks(
  path: string,
  swebench: SwebenchDefaults = {},
): Promise<TasksFile> {
  const dir = dirname(resolve(path));
  const tasks: BatchTask[] = [];
  const seen = new Set<string>();
  for (const { line, value, error } of jsonLines(await readText(path))) {
    const where = `${path}:${line}`;
    if (error !== null) {
      throw new BatchInputError("tasks_invalid", `Cannot parse ${where}: ${error}`);
    }
    const task = resolveTask(value, dir, where, swebench);
    if (seen.has(task.id)) {
      throw new BatchInputError(
        "duplicate_task",
        `Cannot use ${where}: task ${task.id} appears twice`,
      );
    }
    seen.add(task.id);
    tasks.push(task);
  }
  return { tasks, digest: sha256Hex(tasks.map((t) => t.digest).join("\n")) };
}

/**
 * Validates one task line (untrusted JSON) and resolves it against `dir`.
 * Throws {@linkcode BatchInputError} `tasks_invalid`.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { resolveTask } from "./input.ts";
 * const t = resolveTask({ id: "t", repo: "r", base: "HEAD", verify: { command: "true" } }, "/w", "line 1");
 * equal(t.repo, "/w/r");
 * ```
 */
export function resolveTask(
  value: unknown,
  dir: string,
  where: string,
  swebench: SwebenchDefaults = {},
): BatchTask {
  let digestLine: unknown = null;
  if (isSwebenchRow(value)) {
    const row = swebenchLine(value, swebench);
    if (typeof row === "string") {
      throw new BatchInputError("tasks_invalid", `Cannot use ${where}: ${row}`);
    }
    value = row.line;
    digestLine = row.digestLine;
  }
  const r = batchTaskSchema.safeParse(value);
  if (!r.success) {
    throw new BatchInputError("tasks_invalid", `Cannot use ${where}: ${issues(r.error)}`);
  }
  const t = r.data;
  return {
    id: t.id,
    repo: resolve(dir, t.repo),
    base: t.base,
    contract: taskContract(t, where),
    testPatch: t.testPatch ?? null,
    allow: t.allow ?? [],
    forbid: t.forbid ?? [],
    // As written (relative repo): the same task file digests the same on every machine.
    // A SWE-bench row digests with its owner/name, not the local clone's path.
    digest: canonicalDigest((digestLine ?? t) as never),
    source: { line: t, dir },
  };
}

/** What {@linkcode readPredictions} returns. */
export interface PredictionsFile {
  /** Predictions in file order. */
  readonly predictions: readonly Prediction[];
  /** `sha256:` over the canonical predictions in order. */
  readonly digest: string;
}

/**
 * Reads SWE-bench predictions: a JSON array, or JSONL. The same
 * `(instance_id, model_name_or_path)` twice is refused.
 *
 * @example
 * ```ts
 * import { mkdtempSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { equal } from "node:assert/strict";
 * import { readPredictions } from "./input.ts";
 * const file = join(mkdtempSync(join(tmpdir(), "vouch-")), "predictions.json");
 * writeFileSync(file, JSON.stringify([{ instance_id: "t1", model_name_or_path: "m", model_patch: "" }]));
 * equal((await readPredictions(file)).predictions[0]?.model_patch, "");
 * ```
 */
export async function readPredictions(path: string): Promise<PredictionsFile> {
  const text = await readText(path);
  let entries: { where: string; value: unknown }[];
  if (text.trimStart().startsWith("[")) {
    const json = parseJsonText(text);
    if (!json.ok) {
      throw new BatchInputError("predictions_invalid", `Cannot parse ${path}: ${json.error}`);
    }
    const array = json.value;
    if (!Array.isArray(array)) {
      throw new BatchInputError("predictions_invalid", `Cannot use ${path}: not a JSON array`);
    }
    entries = array.map((value, i) => ({ where: `${path}[${i}]`, value }));
  } else {
    entries = jsonLines(text).map(({ line, value, error }) => {
      if (error !== null) {
        throw new BatchInputError("predictions_invalid", `Cannot parse ${path}:${line}: ${error}`);
      }
      return { where: `${path}:${line}`, value };
    });
  }
  const predictions: Prediction[] = [];
  const seen = new Set<string>();
  for (const { where, value } of entries) {
    const r = predictionSchema.safeParse(value);
    if (!r.success) {
      throw new BatchInputError("predictions_invalid", `Cannot use ${where}: ${issues(r.error)}`);
    }
    const k = JSON.stringify([r.data.instance_id, r.data.model_name_or_path]);
    if (seen.has(k)) {
      throw new BatchInputError(
        "duplicate_prediction",
        `Cannot use ${where}: ${r.data.instance_id} from ${r.data.model_name_or_path} appears twice`,
      );
    }
    seen.add(k);
    predictions.push(r.data);
  }
  return {
    predictions,
    digest: sha256Hex(predictions.map((p) => canonicalDigest(p as never)).join("\n")),
  };
}
