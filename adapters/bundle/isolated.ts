/**
 * Runs a bundle evaluation in a child `deno run` whose permissions allow
 * reading only the bundle directory, the WorkUnit and the plan: no write, net,
 * run, env, ffi or sys. Deno's permission system is the outer sandbox, so even
 * a parser bug in the evaluator could do nothing but read those files and
 * print. The parent re-validates the child's stdout with the zod schema.
 *
 * @module
 */
import { resolve } from "node:path";
import { unjudgeableResult } from "../../kernel/bundle/judge.ts";
import type { VerificationResult } from "../../kernel/bundle/types.ts";
import type { EvaluateBundleInput } from "./evaluate.ts";
import { VerificationResultSchema } from "./schemas.ts";
import { tryParseStrictJson } from "./strict_json.ts";

/** The child entry module (prints one VerificationResult as JSON). */
export const EVALUATE_CHILD_ENTRY: URL = new URL("./evaluate_child.ts", import.meta.url);

/** The repository's deno.json, giving the child its import map (`zod`, ...). */
export const EVALUATE_CHILD_CONFIG: URL = new URL("../../deno.json", import.meta.url);

/** Options for {@linkcode evaluateBundleIsolated}. */
export interface IsolatedEvaluationOptions {
  /** Kill the child after this long. @default 60000 */
  timeoutMs?: number;
  /** Maximum bytes of child stdout accepted. @default 16 MiB */
  maxOutputBytes?: number;
  /** The child entry module (tests substitute misbehaving children). @default EVALUATE_CHILD_ENTRY */
  childEntry?: URL;
}

/**
 * The permission flags for a child that may read only `readPaths`.
 * Throws `RangeError` for a path containing a comma (Deno's list separator).
 *
 * @example
 * ```ts
 * import { childPermissionFlags } from "./isolated.ts";
 * const flags = childPermissionFlags(["/tmp/b"]);
 * if (!flags.includes("--allow-read=/tmp/b") || !flags.includes("--deny-net")) {
 *   throw new Error("unexpected");
 * }
 * ```
 */
export function childPermissionFlags(readPaths: readonly string[]): string[] {
  for (const p of readPaths) {
    if (p.includes(",")) throw new RangeError(`Cannot grant read access: ${p} contains a comma`);
    if (p === "") throw new RangeError("Cannot grant read access: empty path");
  }
  return [
    "--no-prompt",
    `--allow-read=${readPaths.join(",")}`,
    "--deny-write",
    "--deny-net",
    "--deny-run",
    "--deny-env",
    "--deny-ffi",
    "--deny-sys",
  ];
}

async function pathForms(path: string): Promise<string[]> {
  const absolute = resolve(path);
  try {
    const real = await Deno.realPath(path);
    return real === absolute ? [absolute] : [absolute, real];
  } catch {
    return [absolute];
  }
}

/**
 * The full `deno` argument vector for running `entry` with read access to
 * exactly the three inputs (and any symlink-resolved forms of them).
 *
 * @example
 * ```ts
 * import { childArgs } from "./isolated.ts";
 * const args = await childArgs(
 *   { bundleDir: "/tmp", workUnitPath: "/tmp/w.json", planPath: "/tmp/p.json" },
 *   new URL("file:///x/child.ts"),
 *   [],
 * );
 * if (args[0] !== "run" || !args.includes("/x/child.ts")) throw new Error("unexpected");
 * ```
 */
export async function childArgs(
  input: EvaluateBundleInput,
  entry: URL,
  entryArgs: readonly string[],
): Promise<string[]> {
  const reads = [
    ...await pathForms(input.bundleDir),
    ...await pathForms(input.workUnitPath),
    ...await pathForms(input.planPath),
  ];
  return [
    "run",
    "--quiet",
    "--cached-only",
    "--config",
    decodeURIComponent(EVALUATE_CHILD_CONFIG.pathname),
    ...childPermissionFlags([...new Set(reads)]),
    decodeURIComponent(entry.pathname),
    ...entryArgs,
  ];
}

function childEnv(): Record<string, string> {
  const env: Record<string, string> = { NO_COLOR: "1" };
  for (const name of ["DENO_DIR", "HOME", "XDG_CACHE_HOME"]) {
    try {
      const value = Deno.env.get(name);
      if (value !== undefined) env[name] = value;
    } catch {
      // No env permission: the child falls back to Deno's defaults.
    }
  }
  return env;
}

async function readCapped(
  stream: ReadableStream<Uint8Array>,
  max: number,
): Promise<Uint8Array | null> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  let over = false;
  for await (const chunk of stream) {
    total += chunk.length;
    if (total > max) over = true;
    if (!over) chunks.push(chunk);
  }
  if (over) return null;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.length;
  }
  return out;
}

/**
 * Evaluates a bundle in a permission-restricted child process. Never throws:
 * a child that cannot start, crashes, times out or prints anything but one
 * valid VerificationResult yields `insufficient_evidence` / `evaluator_error`.
 *
 * @example
 * ```ts
 * import { evaluateBundleIsolated } from "./isolated.ts";
 * const missing = await Deno.makeTempDir();
 * const result = await evaluateBundleIsolated({
 *   bundleDir: missing,
 *   workUnitPath: `${missing}/work-unit.json`,
 *   planPath: `${missing}/plan.json`,
 * });
 * // No WorkUnit: nothing can be judged, and the failure is a reason code, not an exception.
 * if (result.decision_support.reason_codes.join() !== "work_unit_invalid") throw new Error();
 * await Deno.remove(missing);
 * ```
 */
export async function evaluateBundleIsolated(
  input: EvaluateBundleInput,
  options: IsolatedEvaluationOptions = {},
): Promise<VerificationResult> {
  const entry = options.childEntry ?? EVALUATE_CHILD_ENTRY;
  if (entry.protocol !== "file:" || EVALUATE_CHILD_CONFIG.protocol !== "file:") {
    return unjudgeableResult(
      "evaluator_error",
      `Cannot isolate the evaluation: the evaluator is not on a local file system (${entry.protocol})`,
    );
  }
  let args: string[];
  try {
    args = await childArgs(input, entry, [
      "--bundle",
      resolve(input.bundleDir),
      "--work-unit",
      resolve(input.workUnitPath),
      "--plan",
      resolve(input.planPath),
    ]);
  } catch (error) {
    return unjudgeableResult("evaluator_error", `Cannot isolate the evaluation: ${String(error)}`);
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? 60_000);
  try {
    const child = new Deno.Command(Deno.execPath(), {
      args,
      clearEnv: true,
      env: childEnv(),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: controller.signal,
    }).spawn();
    const [stdout, stderr, status] = await Promise.all([
      readCapped(child.stdout, options.maxOutputBytes ?? 16 * 1024 * 1024),
      readCapped(child.stderr, 64 * 1024),
      child.status,
    ]);
    const errText = stderr === null ? "" : new TextDecoder().decode(stderr).slice(0, 2000);
    if (controller.signal.aborted) {
      return unjudgeableResult("evaluator_error", "Cannot evaluate: the isolated child timed out");
    }
    if (!status.success || stdout === null) {
      return unjudgeableResult(
        "evaluator_error",
        `Cannot evaluate: the isolated child failed (exit ${status.code}): ${errText.trim()}`,
      );
    }
    const json = tryParseStrictJson(stdout);
    if (!json.ok) {
      return unjudgeableResult(
        "evaluator_error",
        `Cannot evaluate: the isolated child printed invalid JSON: ${json.error.message}`,
      );
    }
    const parsed = VerificationResultSchema.safeParse(json.value);
    if (!parsed.success) {
      return unjudgeableResult(
        "evaluator_error",
        "Cannot evaluate: the isolated child printed an invalid VerificationResult",
      );
    }
    return parsed.data;
  } catch (error) {
    return unjudgeableResult("evaluator_error", `Cannot run the isolated child: ${String(error)}`);
  } finally {
    clearTimeout(timer);
  }
}
