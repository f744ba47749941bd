/**
 * The in-process bundle evaluation: load the verifier-owned WorkUnit and plan,
 * read the untrusted bundle (strict JSON, zod, lstat checks, streaming
 * digests under caps), then hand the observations to the pure kernel judge.
 * Never throws: any failure becomes a reason code in the VerificationResult.
 *
 * The CLI runs this inside a permission-restricted child process
 * (see `isolated.ts`); library users may call it directly.
 *
 * @module
 */
import { readFile, realpath, stat } from "node:fs/promises";
import { isAbsolute, relative, resolve } from "node:path";
import type {
  BundleFacts,
  FileObservation,
  ManifestObservation,
} from "../../kernel/bundle/facts.ts";
import { judgeBundle, unjudgeableResult } from "../../kernel/bundle/judge.ts";
import {
  MANIFEST_LOCATOR,
  MAX_MANIFEST_BYTES,
  planBundleReads,
} from "../../kernel/bundle/read_plan.ts";
import type { EvaluatorPlan, VerificationResult, WorkUnit } from "../../kernel/bundle/types.ts";
import { canonicalDigest } from "../canonical_json/mod.ts";
import { listBundleEntries, readBundleFile } from "./files.ts";
import { EvaluatorPlanSchema, ResultManifestSchema, WorkUnitSchema } from "./schemas.ts";
import { type StrictJsonValue, tryParseStrictJson } from "./strict_json.ts";

/** Where the three inputs of an evaluation live. */
export interface EvaluateBundleInput {
  /** The candidate root: a directory holding `result-manifest.json` and declared files. */
  bundleDir: string;
  /** The verifier-owned WorkUnit JSON file. */
  workUnitPath: string;
  /** The verifier-owned EvaluatorPlan JSON file. */
  planPath: string;
}

/** Verifier-owned cap on the WorkUnit and plan files. */
export const MAX_VERIFIER_DOCUMENT_BYTES = 4 * 1024 * 1024;

type Loaded<T> = { ok: true; value: T; raw: StrictJsonValue } | { ok: false; detail: string };

async function loadVerifierDocument<T>(
  path: string,
  what: string,
  parse: (v: unknown) => { success: true; data: T } | { success: false; error: unknown },
): Promise<Loaded<T>> {
  let bytes: Uint8Array;
  try {
    const info = await stat(path);
    if (!info.isFile()) return { ok: false, detail: `Cannot read ${what}: ${path} is not a file` };
    if (info.size > MAX_VERIFIER_DOCUMENT_BYTES) {
      return { ok: false, detail: `Cannot read ${what}: ${path} is larger than the cap` };
    }
    bytes = new Uint8Array(await readFile(path));
  } catch (error) {
    return { ok: false, detail: `Cannot read ${what}: ${describe(error)}` };
  }
  const json = tryParseStrictJson(bytes);
  if (!json.ok) {
    return { ok: false, detail: `Cannot read ${what}: ${json.error.code}: ${json.error.message}` };
  }
  const parsed = parse(json.value);
  if (!parsed.success) {
    return { ok: false, detail: `Cannot read ${what}: schema: ${describeZod(parsed.error)}` };
  }
  return { ok: true, value: parsed.data, raw: json.value };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function describeZod(error: unknown): string {
  const issues = (error as { issues?: { path: PropertyKey[]; message: string }[] }).issues ?? [];
  return issues.slice(0, 5).map((i) => `${i.path.map(String).join(".") || "(root)"}: ${i.message}`)
    .join("; ");
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

async function realOrResolved(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return resolve(path);
  }
}

/** Reads and classifies the manifest of a bundle. */
async function observeManifest(root: string): Promise<ManifestObservation> {
  const seen = await readBundleFile(root, MANIFEST_LOCATOR, {
    maxBytes: MAX_MANIFEST_BYTES,
    keepBytes: true,
  });
  if (!seen.ok) {
    return seen.code === "file_missing"
      ? { ok: false, code: "manifest_missing", detail: seen.detail }
      : { ok: false, code: seen.code, detail: seen.detail };
  }
  const json = tryParseStrictJson(seen.bytes ?? new Uint8Array(0));
  if (!json.ok) {
    const code =
      json.error.code === "json_duplicate_key" || json.error.code === "json_forbidden_key"
        ? json.error.code
        : "manifest_json_invalid";
    return { ok: false, code, detail: `${MANIFEST_LOCATOR}: ${json.error.message}` };
  }
  const parsed = ResultManifestSchema.safeParse(json.value);
  if (!parsed.success) {
    const digestIssue = parsed.error.issues.some((issue) => {
      const last = issue.path[issue.path.length - 1];
      return typeof last === "string" && last.endsWith("digest") && issue.code === "invalid_format";
    });
    return {
      ok: false,
      code: digestIssue ? "digest_malformed" : "manifest_schema_invalid",
      detail: `${MANIFEST_LOCATOR}: ${describeZod(parsed.error)}`,
    };
  }
  return { ok: true, value: parsed.data, digest: canonicalDigest(json.value) };
}

/**
 * Evaluates one bundle in this process and returns the VerificationResult.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdtempSync, rmSync } from "node:fs";
 * import { evaluateBundleInProcess } from "./evaluate.ts";
 * const missing = mkdtempSync(join(tmpdir(), "vouch-"));
 * const result = await evaluateBundleInProcess({
 *   bundleDir: missing,
 *   workUnitPath: `${missing}/work-unit.json`,
 *   planPath: `${missing}/plan.json`,
 * });
 * // No WorkUnit: nothing can be judged, and the failure is a reason code, not an exception.
 * if (result.decision_support.reason_codes.join() !== "work_unit_invalid") throw new Error();
 * rmSync(missing, { recursive: true, force: true });
 * ```
 */
export async function evaluateBundleInProcess(
  input: EvaluateBundleInput,
): Promise<VerificationResult> {
  try {
    return await evaluateUnguarded(input);
  } catch (error) {
    return unjudgeableResult("evaluator_error", `Cannot evaluate bundle: ${describe(error)}`);
  }
}

async function evaluateUnguarded(input: EvaluateBundleInput): Promise<VerificationResult> {
  const workUnit = await loadVerifierDocument<WorkUnit>(
    input.workUnitPath,
    "WorkUnit",
    (v) => WorkUnitSchema.safeParse(v),
  );
  if (!workUnit.ok) return unjudgeableResult("work_unit_invalid", workUnit.detail);
  const plan = await loadVerifierDocument<EvaluatorPlan>(
    input.planPath,
    "EvaluatorPlan",
    (v) => EvaluatorPlanSchema.safeParse(v),
  );
  if (!plan.ok) return unjudgeableResult("plan_invalid", plan.detail);

  let root: string;
  try {
    root = await realpath(input.bundleDir);
    if (!(await stat(root)).isDirectory()) {
      return unjudgeableResult(
        "evaluator_error",
        `Cannot evaluate: ${input.bundleDir} is not a directory`,
      );
    }
  } catch (error) {
    return unjudgeableResult("evaluator_error", `Cannot open bundle: ${describe(error)}`);
  }
  // Policy: the verifier-owned documents must live outside candidate control.
  if (isInside(root, await realOrResolved(input.planPath))) {
    return unjudgeableResult("plan_invalid", "Cannot use plan: it lies inside the candidate root");
  }
  if (isInside(root, await realOrResolved(input.workUnitPath))) {
    return unjudgeableResult(
      "work_unit_invalid",
      "Cannot use WorkUnit: it lies inside the candidate root",
    );
  }

  const manifest = await observeManifest(root);
  const files = new Map<string, FileObservation>();
  let candidateJson: BundleFacts["candidateJson"];
  if (manifest.ok) {
    const { reads } = planBundleReads(plan.value, manifest.value);
    for (const read of reads) {
      const seen = await readBundleFile(root, read.path, {
        maxBytes: read.maxBytes,
        keepBytes: read.keepBytes,
      });
      files.set(read.path, seen);
      if (read.role === "candidate" && plan.value.schema_version === "0.1" && seen.ok) {
        const json = tryParseStrictJson(seen.bytes ?? new Uint8Array(0));
        candidateJson = json.ok
          ? { ok: true, value: json.value }
          : { ok: false, code: json.error.code, detail: json.error.message };
      }
    }
  }
  const entries = await listBundleEntries(root);
  const facts: BundleFacts = {
    workUnit: workUnit.value,
    workUnitDigest: canonicalDigest(workUnit.raw),
    plan: plan.value,
    planDigest: canonicalDigest(plan.raw),
    manifest,
    files,
    entries,
    ...(candidateJson === undefined ? {} : { candidateJson }),
  };
  return judgeBundle(facts);
}
