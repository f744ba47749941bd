/**
 * SWE-bench dataset rows as tasks: a line with `instance_id` (and no `id`)
 * is read in SWE-bench's own shape (`repo` as owner/name, `base_commit`,
 * `test_patch`, `FAIL_TO_PASS`/`PASS_TO_PASS` as JSON-encoded strings as in
 * the HF dataset, or arrays; every other dataset field ignored) and turned
 * into a vouch task line whose `repo` is a local clone under `--repos DIR`.
 *
 * @module
 */
import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { TEST_FORMATS } from "../test_failures/parse.ts";

const listOf = z.lazy(() =>
  z.union([z.string().max(10_000_000), z.array(z.string().min(1).max(2000))])
);

/** The zod schema of a SWE-bench dataset row (extra keys ignored, not refused). */
export const swebenchRowSchema = z.lazy(() =>
  z.object({
    instance_id: z.string().min(1).max(300),
    repo: z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, "must be owner/name"),
    base_commit: z.string().min(1).max(256),
    test_patch: z.string().max(10_000_000).optional(),
    FAIL_TO_PASS: listOf.optional(),
    PASS_TO_PASS: listOf.optional(),
    /** vouch's own: the test command (SWE-bench keeps it in its harness, not the row). */
    verify: z.strictObject({
      command: z.string().min(1).max(10_000),
      tests: z.enum(TEST_FORMATS as [string, ...string[]]).optional(),
      timeout: z.number().positive().max(600).optional(),
    }).optional(),
    allow: z.array(z.string().min(1).max(1000)).max(1000).optional(),
    forbid: z.array(z.string().min(1).max(1000)).max(1000).optional(),
  })
);

/** Whether a parsed line is in SWE-bench's shape (it names `instance_id` and not `id`). */
export function isSwebenchRow(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    "instance_id" in value && !("id" in value);
}

/** Where a SWE-bench row's repository is looked for: DIR/owner__name, then DIR/name. */
export function repoCandidates(reposDir: string, repo: string): string[] {
  const [owner, name] = repo.split("/") as [string, string];
  return [join(reposDir, `${owner}__${name}`), join(reposDir, name)];
}

/** The test command a row without `verify` uses (`--test-command`, `--test-format`). */
export interface SwebenchDefaults {
  /** `--repos DIR`: where local clones live. */
  readonly repos?: string;
  /** The command for rows without `verify`. */
  readonly testCommand?: string;
  /** Its output format. */
  readonly testFormat?: string;
}

/**
 * A SWE-bench row as a vouch task line (`repo` absolute) plus the line the
 * digest covers (`repo` as owner/name, so the digest is the same on every
 * machine). Returns a string (the problem, for humans) when it cannot be used.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { swebenchLine } from "./_swebench_row.ts";
 * const r = swebenchLine({ instance_id: "a__b-1", repo: "a/b", base_commit: "HEAD",
 *   FAIL_TO_PASS: '["t1"]', PASS_TO_PASS: "[]", verify: { command: "true" } }, { repos: "/nowhere" });
 * equal(typeof r, "string");
 * ```
 */
export function swebenchLine(
  value: unknown,
  defaults: SwebenchDefaults,
): { line: Record<string, unknown>; digestLine: Record<string, unknown> } | string {
  const r = swebenchRowSchema.safeParse(value);
  if (!r.success) {
    return r.error.issues.slice(0, 5).map((i) =>
      `${i.path.length ? i.path.map(String).join(".") : "(root)"}: ${i.message}`
    ).join("; ");
  }
  const row = r.data;
  const lists: Record<string, string[]> = {};
  for (const [key, to] of [["FAIL_TO_PASS", "failToPass"], ["PASS_TO_PASS", "passToPass"]]) {
    const raw = row[key as "FAIL_TO_PASS"];
    if (raw === undefined) continue;
    let list: unknown = raw;
    if (typeof raw === "string") {
      try {
        list = JSON.parse(raw);
      } catch {
        return `${key}: not a JSON-encoded list of test ids`;
      }
    }
    const ok = z.array(z.string().min(1).max(2000)).max(100_000).safeParse(list);
    if (!ok.success) return `${key}: not a list of test ids`;
    lists[to!] = ok.data;
  }
  if (defaults.repos === undefined) {
    return `the row is in SWE-bench's shape (repo "${row.repo}"): give --repos DIR with its local clone`;
  }
  const tried = repoCandidates(resolve(defaults.repos), row.repo);
  const repo = tried.find((p) => existsSync(p) && statSync(p).isDirectory());
  if (repo === undefined) {
    return `no local clone of ${row.repo}: tried ${tried.join(" and ")}`;
  }
  const command = row.verify?.command ?? defaults.testCommand;
  if (command === undefined) {
    return `no test command for ${row.instance_id}: give the row a "verify": {"command": ...} or pass --test-command`;
  }
  const tests = row.verify?.tests ?? (row.verify === undefined ? defaults.testFormat : undefined);
  const verify = {
    command,
    ...(tests !== undefined ? { tests } : {}),
    ...lists,
    ...(row.verify?.timeout !== undefined ? { timeout: row.verify.timeout } : {}),
  };
  const line: Record<string, unknown> = {
    id: row.instance_id,
    repo,
    base: row.base_commit,
    verify,
    ...(row.test_patch !== undefined && row.test_patch !== "" ? { testPatch: row.test_patch } : {}),
    ...(row.allow !== undefined ? { allow: row.allow } : {}),
    ...(row.forbid !== undefined ? { forbid: row.forbid } : {}),
  };
  return { line, digestLine: { ...line, repo: `swebench:${row.repo}` } };
}
