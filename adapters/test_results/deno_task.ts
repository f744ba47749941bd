/**
 * What a `deno task NAME` check runs, read from the BASE's `deno.json` /
 * `deno.jsonc` (never from the tree under judgement, which the patch may have
 * edited): when the task is one simple `deno test ...` command, vouch can have
 * deno write a JUnit report through it (`deno task` appends the words after
 * `NAME` to the task's command, so `--junit-path=<file>` reaches `deno test`).
 * (`denoTaskCall` in `plan.ts` reads the check command.) Anything vouch
 * cannot be sure of (a task with dependencies, shell operators, an env
 * prefix, a `--`, a config that does not parse) gives no task, and the check
 * keeps its exit-code judgement. A tree whose task differs from the base's
 * gives no task either (`denoTaskFor`); the check runner then reads no
 * per-test result from that run at all (`run_checks.ts`).
 *
 * @module
 */
import { z } from "zod";
import { stripJsonComments } from "../../kernel/text/jsonc.ts";
import { denoTestEnd, simpleShellWords } from "./plan.ts";

/** The config files `deno task` reads its tasks from, in the order deno looks for them. */
export const DENO_CONFIG_FILES: readonly string[] = ["deno.json", "deno.jsonc"];

/** A task of `deno.json`: its command string, or Deno 2's object form. */
const TaskSchema = z.union([
  z.string(),
  z.strictObject({
    command: z.string().optional(),
    description: z.string().optional(),
    dependencies: z.array(z.string()).optional(),
  }),
]);

/** The part of a deno config vouch reads: `tasks`, an object of tasks (other keys are deno's). */
const ConfigSchema = z.object({ tasks: z.record(z.string(), z.unknown()).optional() });

/** A task's command, or why vouch does not use it. */
export type DenoTaskLookup =
  | {
    readonly ok: true;
    /** The config file deno reads it from. */
    readonly file: string;
    /** The task's command: one simple `deno test ...`. */
    readonly command: string;
  }
  | { readonly ok: false; readonly reason: string };

/**
 * The command of task `name` in `configs` (config file name -> text; the file
 * deno reads is `deno.json` when it exists, else `deno.jsonc`), when it is
 * one simple `deno test ...` command vouch can add `--junit-path` to: a
 * string, or `{ "command": ... }` with no dependencies; no shell operators,
 * expansions, comments or env prefix (`simpleShellWords`), no `--` (the flag
 * would become a script argument), no junit report of its own. A config that
 * does not parse (JSONC comments and trailing commas are allowed) gives no task.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { denoTaskOf } from "./deno_task.ts";
 * const ok = denoTaskOf(new Map([["deno.json", '{"tasks":{"test":"deno test -A"}}']]), "test");
 * equal(ok.ok && ok.command, "deno test -A");
 * const jsonc = new Map([["deno.jsonc", '{ // tasks\n "tasks": { "ci": { "command": "deno test" }, }, }']]);
 * equal(denoTaskOf(jsonc, "ci").ok, true);
 * equal(denoTaskOf(new Map([["deno.json", '{"tasks":{"test":"deno lint && deno test"}}']]), "test").ok, false);
 * ```
 */
export function denoTaskOf(configs: ReadonlyMap<string, string>, name: string): DenoTaskLookup {
  const file = DENO_CONFIG_FILES.find((f) => configs.has(f));
  if (file === undefined) return { ok: false, reason: "the base has no deno.json or deno.jsonc" };
  let parsed: unknown;
  try {
    parsed = JSON.parse(stripJsonComments(configs.get(file)!));
  } catch {
    return { ok: false, reason: `the base's ${file} does not parse` };
  }
  const config = ConfigSchema.safeParse(parsed);
  if (!config.success) return { ok: false, reason: `the base's ${file} has no readable tasks` };
  const tasks = config.data.tasks ?? {};
  if (!Object.hasOwn(tasks, name)) {
    return { ok: false, reason: `the base's ${file} defines no task ${name}` };
  }
  const task = TaskSchema.safeParse(tasks[name]);
  if (!task.success) return { ok: false, reason: `task ${name} of ${file} has an unknown form` };
  const t = task.data;
  if (typeof t !== "string" && (t.dependencies ?? []).length > 0) {
    return { ok: false, reason: `task ${name} of ${file} runs other tasks first (dependencies)` };
  }
  const command = typeof t === "string" ? t : t.command;
  if (command === undefined) return { ok: false, reason: `task ${name} of ${file} has no command` };
  const words = command.includes("#") ? null : simpleShellWords(command);
  if (words === null || denoTestEnd(command) === null || words.some((w) => w.text === "--")) {
    return { ok: false, reason: `task ${name} of ${file} is not one simple deno test command` };
  }
  if (/--junit-path|--reporter[= ]+junit\b/.test(command)) {
    return { ok: false, reason: `task ${name} of ${file} already asks deno for a junit report` };
  }
  return { ok: true, file, command };
}

/**
 * Task `name` as the BASE defines it, when the tree the check runs in
 * (`tree`: its `deno.json` / `deno.jsonc` texts) gives deno the same
 * definition from the same file; otherwise no task (the patch redefined it,
 * or added a config deno would read first).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { denoTaskFor } from "./deno_task.ts";
 * const base = new Map([["deno.json", '{"tasks":{"test":"deno test"}}']]);
 * equal(denoTaskFor(base, base, "test").ok, true);
 * equal(denoTaskFor(base, new Map([["deno.json", '{"tasks":{"test":"deno test mul_test.ts"}}']]), "test").ok, false);
 * ```
 */
export function denoTaskFor(
  base: ReadonlyMap<string, string>,
  tree: ReadonlyMap<string, string>,
  name: string,
): DenoTaskLookup {
  const fromBase = denoTaskOf(base, name);
  if (!fromBase.ok) return fromBase;
  const fromTree = denoTaskOf(tree, name);
  if (!fromTree.ok || fromTree.file !== fromBase.file || fromTree.command !== fromBase.command) {
    return { ok: false, reason: `the tree defines task ${name} otherwise than the base` };
  }
  return fromBase;
}
