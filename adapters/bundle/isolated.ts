/**
 * Runs a bundle evaluation in a child process of the same runtime whose
 * permissions allow reading only the bundle directory, the WorkUnit and the
 * plan (and, under Node, the child's own code): no write, run or env (and
 * under Deno no net, ffi or sys either; Node's permission model has no
 * network switch). Deno's permission system or Node's permission model is the
 * outer sandbox, so even a parser bug in the evaluator could do little but
 * read those files and print. The parent re-validates the child's stdout with
 * the zod schema. How each runtime starts its child is `isolation_runtime.ts`.
 *
 * @module
 */
import { resolve } from "node:path";
import { unjudgeableResult } from "../../kernel/bundle/judge.ts";
import { VouchError } from "../../kernel/errors/mod.ts";
import type { VerificationResult } from "../../kernel/bundle/types.ts";
import { spawnChild } from "../process/_spawn.ts";
import { permissionDenied } from "../process/permission.ts";
import type { EvaluateBundleInput } from "./evaluate.ts";
import {
  type ChildCommand,
  currentIsolation,
  EVALUATE_CHILD_ENTRY,
  type IsolationRuntime,
  pathForms,
} from "./isolation_runtime.ts";
import { findEscapingLink } from "./link_scan.ts";
import { VerificationResultSchema } from "./schemas.ts";
import { tryParseStrictJson } from "./strict_json.ts";
import { concatBytes } from "../bytes/concat.ts";

export {
  childPermissionFlags,
  EVALUATE_CHILD_CONFIG,
  EVALUATE_CHILD_ENTRY,
  nodePermissionFlags,
} from "./isolation_runtime.ts";

/** Options for {@linkcode evaluateBundle}. */
export interface EvaluateBundleOptions {
  /** Kill the child after this long. @default 60000 */
  timeoutMs?: number;
  /** Maximum bytes of child stdout accepted. @default 16 MiB */
  maxOutputBytes?: number;
  /** The child entry module (tests substitute misbehaving children). @default EVALUATE_CHILD_ENTRY */
  childEntry?: URL;
}

/**
 * The command that runs `entry` with read access to exactly the three inputs
 * (and any symlink-resolved forms of them), on `runtime`.
 *
 * @example
 * ```ts
 * import { childCommand } from "./isolated.ts";
 * import { denoIsolation } from "./isolation_runtime.ts";
 * const cmd = childCommand(
 *   { bundleDir: "/tmp", workUnitPath: "/tmp/w.json", planPath: "/tmp/p.json" },
 *   new URL("file:///x/child.ts"),
 *   [],
 *   denoIsolation,
 * );
 * if (cmd.args[0] !== "run" || !cmd.args.includes("/x/child.ts")) throw new Error("unexpected");
 * ```
 */
export function childCommand(
  input: EvaluateBundleInput,
  entry: URL,
  entryArgs: readonly string[],
  runtime: IsolationRuntime,
): ChildCommand {
  const reads = [
    ...pathForms(input.bundleDir),
    ...pathForms(input.workUnitPath),
    ...pathForms(input.planPath),
  ];
  return runtime.command(entry, [...new Set(reads)], entryArgs);
}

/** Collects a child's output up to `max` bytes; past it, `bytes()` is null. */
function cappedSink(max: number) {
  const chunks: Uint8Array[] = [];
  let total = 0;
  return {
    push(chunk: Uint8Array): void {
      total += chunk.length;
      if (total <= max) chunks.push(chunk.slice());
    },
    bytes(): Uint8Array | null {
      return total > max ? null : concatBytes(chunks);
    },
  };
}

/**
 * Evaluates a bundle in a permission-restricted child process of the same
 * runtime (Deno or Node). A child that cannot start, crashes, times out or
 * prints anything but one valid VerificationResult yields
 * `insufficient_evidence` / `evaluator_error`. Throws only
 * {@link VouchError} `isolation_unavailable`, when this runtime cannot isolate
 * the child at all (a Node without the permission model, a single executable):
 * the bundle is then not evaluated, never evaluated unisolated; and
 * `permission_denied` when this process may not start the child (Deno without
 * `--allow-run=<Deno.execPath()>`), naming the flag.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdtempSync, rmSync } from "node:fs";
 * import { evaluateBundle } from "./isolated.ts";
 * const missing = mkdtempSync(join(tmpdir(), "vouch-"));
 * const result = await evaluateBundle({
 *   bundleDir: missing,
 *   workUnitPath: `${missing}/work-unit.json`,
 *   planPath: `${missing}/plan.json`,
 * });
 * // No WorkUnit: nothing can be judged, and the failure is a reason code, not an exception.
 * if (result.decision_support.reason_codes.join() !== "work_unit_invalid") throw new Error();
 * rmSync(missing, { recursive: true, force: true });
 * ```
 */
export function evaluateBundle(
  input: EvaluateBundleInput,
  options: EvaluateBundleOptions = {},
): Promise<VerificationResult> {
  return evaluateBundleOn(currentIsolation(), input, options);
}

/**
 * {@link evaluateBundle} with the child started by `runtime` (internal: tests start a Node child
 * from Deno; the package evaluates on the runtime it runs on).
 */
export async function evaluateBundleOn(
  runtime: IsolationRuntime,
  input: EvaluateBundleInput,
  options: EvaluateBundleOptions = {},
): Promise<VerificationResult> {
  const entry = options.childEntry ?? EVALUATE_CHILD_ENTRY;
  if (entry.protocol !== "file:") {
    return unjudgeableResult(
      "evaluator_error",
      `Cannot isolate the evaluation: the evaluator is not on a local file system (${entry.protocol})`,
    );
  }
  // The permission layer follows links: never grant a bundle with one leading out of it.
  const escape = await findEscapingLink(input.bundleDir);
  if (escape !== null) {
    return unjudgeableResult(
      "evaluator_error",
      `Cannot evaluate in isolation: ${escape}; a read permission on the bundle would reach ` +
        "outside it, so the bundle is not granted",
    );
  }
  let command: ChildCommand;
  try {
    command = childCommand(input, entry, [
      "--bundle",
      resolve(input.bundleDir),
      "--work-unit",
      resolve(input.workUnitPath),
      "--plan",
      resolve(input.planPath),
    ], runtime);
  } catch (error) {
    if (error instanceof VouchError) throw error;
    return unjudgeableResult("evaluator_error", `Cannot isolate the evaluation: ${String(error)}`);
  }
  const stdout = cappedSink(options.maxOutputBytes ?? 16 * 1024 * 1024);
  const stderr = cappedSink(64 * 1024);
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const child = await spawnChild({
      program: command.program,
      args: command.args,
      cwd: resolve("/"),
      env: command.env,
      detached: false,
      stdin: undefined,
      openStdin: undefined,
      onStdout: (chunk) => stdout.push(chunk),
      onStderr: (chunk) => stderr.push(chunk),
    });
    timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, options.timeoutMs ?? 60_000);
    const [status] = await Promise.all([child.status, child.outDone, child.errDone]);
    const out = stdout.bytes();
    const err = stderr.bytes();
    const errText = err === null ? "" : new TextDecoder().decode(err).slice(0, 2000);
    if (timedOut) {
      return unjudgeableResult("evaluator_error", "Cannot evaluate: the isolated child timed out");
    }
    if (status.code !== 0 || status.signal !== null || out === null) {
      return unjudgeableResult(
        "evaluator_error",
        `Cannot evaluate: the isolated child failed (exit ${status.code}): ${errText.trim()}`,
      );
    }
    const json = tryParseStrictJson(out);
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
    const denied = permissionDenied(error);
    if (denied !== null) throw denied;
    return unjudgeableResult("evaluator_error", `Cannot run the isolated child: ${String(error)}`);
  } finally {
    clearTimeout(timer);
  }
}
