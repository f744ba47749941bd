import type { MacKey } from "../keys/mac_key.ts";
import { VerifiedPatchError } from "./errors.ts";
import { assertVerifiedPatch, type VerifiedPatch } from "./verified_patch.ts";

/** Where `integrate` puts a verified patch. */
export interface IntegrationTarget {
  /** The repository (the user's checkout or a bare clone). */
  readonly repoRoot: string;
  /** A new branch name; must not exist yet. */
  readonly branch: string;
  /** Commit message. */
  readonly message: string;
}

/** What the git side receives; it never sees anything but verified bytes. */
export interface NewBranchCommit extends IntegrationTarget {
  /** Revision to branch from (the patch's base revision). */
  readonly baseRevision: string;
  /** The verified diff bytes. */
  readonly diff: Uint8Array;
  /** `sha256:` of the diff, for the commit trailer. */
  readonly patchDigest: string;
}

/** The git operations `integrate` needs, injected so this module stays free of git. */
export interface IntegrationOps {
  /** Creates `branch` at `baseRevision`, applies `diff`, commits; returns the commit id. */
  commitOnNewBranch(request: NewBranchCommit): Promise<{ readonly commit: string }>;
}

/** What `integrate` reports. */
export interface IntegrationResult {
  readonly task: string;
  readonly branch: string;
  readonly commit: string;
  readonly patchDigest: string;
}

const BRANCH = /^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*@\{)[A-Za-z0-9._\/-]{1,200}(?<![./])$/;

/**
 * Integrates a verified patch: re-checks it at run time (brand, MAC, diff
 * digest), then asks `ops` to commit it on a new branch. The type accepts only a
 * `VerifiedPatch`; an `UnverifiedPatch` does not compile here.
 *
 * @example
 * ```ts
 * import { deepEqual, equal, rejects } from "node:assert/strict";
 * import { importMacKey } from "../keys/mac_key.ts";
 * import { mintReceipt, receiptDigest } from "../receipts/receipt.ts";
 * import { mintVerifiedPatch } from "./verified_patch.ts";
 * const key = await importMacKey(new Uint8Array(32).fill(3), "memory");
 * const z = { digest: "sha256:" + "0".repeat(64), bytes: 0 };
 * const receipt = await mintReceipt(key, {
 *   task: "t1", tool: "check:unit", argv: ["true"], cwd: "/", sandboxProfile: "none",
 *   envNames: [], startedAt: 0, endedAt: 1, exit: { code: 0, signal: null, timedOut: false },
 *   stdout: z, stderr: z,
 * }, { anchor: { seq: 0, hash: "0".repeat(64) }, prevReceipt: "0".repeat(64) });
 * const verified = await mintVerifiedPatch(key, {
 *   patch: { kind: "unverified_patch", task: "t1", baseRevision: "abc", diff: new Uint8Array([1]), backend: "fn" },
 *   contractDigest: "sha256:" + "1".repeat(64),
 *   checks: [{ id: "unit", outcome: "pass", receipt: receiptDigest(receipt) }],
 *   receipts: [receipt], passedAt: 5, sandboxProfile: "none",
 *   logAnchor: { seq: 0, hash: "0".repeat(64) },
 * });
 * import { integrate, type NewBranchCommit } from "./capabilities.ts";
 * const seen: NewBranchCommit[] = [];
 * const gitOps = { commitOnNewBranch: async (r: NewBranchCommit) => (seen.push(r), { commit: "c0ffee" }) };
 * const target = { repoRoot: "/repo", branch: "vouch/t1", message: "Fix" };
 * const result = await integrate(verified, target, gitOps, key);
 * deepEqual([result.branch, result.commit], ["vouch/t1", "c0ffee"]);
 * deepEqual(seen[0]?.diff, new Uint8Array([1])); // git receives the verified bytes, nothing else
 * await rejects(integrate(verified, { ...target, branch: "--force" }, gitOps, key), { code: "invalid_input" });
 * await rejects(integrate({ ...verified } as typeof verified, target, gitOps, key), { code: "forged" });
 * equal(seen.length, 1);
 * ```
 */
export async function integrate(
  patch: VerifiedPatch,
  target: IntegrationTarget,
  ops: IntegrationOps,
  key: MacKey,
): Promise<IntegrationResult> {
  await assertVerifiedPatch(patch, key);
  if (!BRANCH.test(target.branch)) {
    throw new VerifiedPatchError(
      "invalid_input",
      `Cannot integrate: bad branch name "${target.branch}"`,
    );
  }
  const { commit } = await ops.commitOnNewBranch({
    repoRoot: target.repoRoot,
    branch: target.branch,
    message: target.message,
    baseRevision: patch.baseRevision,
    diff: patch.diff,
    patchDigest: patch.patchDigest,
  });
  return { task: patch.task, branch: target.branch, commit, patchDigest: patch.patchDigest };
}

/** The summary of a task completed with a verified patch. */
export interface CompletedTask {
  readonly task: string;
  readonly patchDigest: string;
  readonly contractDigest: string;
  readonly passedAt: number;
  readonly checks: number;
  readonly receipts: number;
}

/**
 * Marks a task done. Only a `VerifiedPatch` (re-checked at run time) can
 * complete a task: "done" means verified.
 *
 * @example
 * ```ts
 * import { deepEqual, rejects } from "node:assert/strict";
 * import { importMacKey } from "../keys/mac_key.ts";
 * import { mintReceipt, receiptDigest } from "../receipts/receipt.ts";
 * import { mintVerifiedPatch } from "./verified_patch.ts";
 * const key = await importMacKey(new Uint8Array(32).fill(3), "memory");
 * const z = { digest: "sha256:" + "0".repeat(64), bytes: 0 };
 * const receipt = await mintReceipt(key, {
 *   task: "t1", tool: "check:unit", argv: ["true"], cwd: "/", sandboxProfile: "none",
 *   envNames: [], startedAt: 0, endedAt: 1, exit: { code: 0, signal: null, timedOut: false },
 *   stdout: z, stderr: z,
 * }, { anchor: { seq: 0, hash: "0".repeat(64) }, prevReceipt: "0".repeat(64) });
 * const verified = await mintVerifiedPatch(key, {
 *   patch: { kind: "unverified_patch", task: "t1", baseRevision: "abc", diff: new Uint8Array([1]), backend: "fn" },
 *   contractDigest: "sha256:" + "1".repeat(64),
 *   checks: [{ id: "unit", outcome: "pass", receipt: receiptDigest(receipt) }],
 *   receipts: [receipt], passedAt: 5, sandboxProfile: "none",
 *   logAnchor: { seq: 0, hash: "0".repeat(64) },
 * });
 * import { complete } from "./capabilities.ts";
 * const done = await complete(verified, key);
 * deepEqual([done.task, done.checks, done.receipts], ["t1", 1, 1]);
 * await rejects(complete({ ...verified } as typeof verified, key), { code: "forged" });
 * ```
 */
export async function complete(patch: VerifiedPatch, key: MacKey): Promise<CompletedTask> {
  await assertVerifiedPatch(patch, key);
  return {
    task: patch.task,
    patchDigest: patch.patchDigest,
    contractDigest: patch.contractDigest,
    passedAt: patch.passedAt,
    checks: patch.checks.length,
    receipts: patch.receipts.length,
  };
}

/** What the PR side receives. */
export interface PullRequestRequest {
  readonly task: string;
  readonly branch: string;
  readonly title: string;
  readonly body: string;
  readonly baseRevision: string;
  readonly diff: Uint8Array;
  readonly patchDigest: string;
}

/** The PR-opening capability, injected (vouch itself ships no network client). */
export interface PullRequestOps {
  /** Opens a pull request; returns its URL. */
  openPullRequest(request: PullRequestRequest): Promise<{ readonly url: string }>;
}

/**
 * Opens a pull request for a verified patch (re-checked at run time).
 *
 * @example
 * ```ts
 * import { equal, match } from "node:assert/strict";
 * import { importMacKey } from "../keys/mac_key.ts";
 * import { mintReceipt, receiptDigest } from "../receipts/receipt.ts";
 * import { mintVerifiedPatch } from "./verified_patch.ts";
 * const key = await importMacKey(new Uint8Array(32).fill(3), "memory");
 * const z = { digest: "sha256:" + "0".repeat(64), bytes: 0 };
 * const receipt = await mintReceipt(key, {
 *   task: "t1", tool: "check:unit", argv: ["true"], cwd: "/", sandboxProfile: "none",
 *   envNames: [], startedAt: 0, endedAt: 1, exit: { code: 0, signal: null, timedOut: false },
 *   stdout: z, stderr: z,
 * }, { anchor: { seq: 0, hash: "0".repeat(64) }, prevReceipt: "0".repeat(64) });
 * const verified = await mintVerifiedPatch(key, {
 *   patch: { kind: "unverified_patch", task: "t1", baseRevision: "abc", diff: new Uint8Array([1]), backend: "fn" },
 *   contractDigest: "sha256:" + "1".repeat(64),
 *   checks: [{ id: "unit", outcome: "pass", receipt: receiptDigest(receipt) }],
 *   receipts: [receipt], passedAt: 5, sandboxProfile: "none",
 *   logAnchor: { seq: 0, hash: "0".repeat(64) },
 * });
 * import { openPullRequest, type PullRequestRequest } from "./capabilities.ts";
 * let opened: PullRequestRequest | null = null;
 * const prOps = {
 *   openPullRequest: async (r: PullRequestRequest) => ((opened = r), { url: "https://example.invalid/pr/1" }),
 * };
 * const { url } = await openPullRequest(verified, { branch: "vouch/t1", title: "Fix" }, prOps, key);
 * equal(url, "https://example.invalid/pr/1");
 * match(opened!.body, /Verified by vouch \(contract sha256:1{64}\):\n- unit: pass/);
 * ```
 */
export async function openPullRequest(
  patch: VerifiedPatch,
  request: { readonly branch: string; readonly title: string; readonly body?: string },
  ops: PullRequestOps,
  key: MacKey,
): Promise<{ readonly url: string }> {
  await assertVerifiedPatch(patch, key);
  if (!BRANCH.test(request.branch)) {
    throw new VerifiedPatchError(
      "invalid_input",
      `Cannot open pull request: bad branch name "${request.branch}"`,
    );
  }
  const checks = patch.checks.map((c) => `- ${c.id}: ${c.outcome}`).join("\n");
  return await ops.openPullRequest({
    task: patch.task,
    branch: request.branch,
    title: request.title,
    body: `${
      request.body ?? ""
    }\n\nVerified by vouch (contract ${patch.contractDigest}):\n${checks}\n`
      .trimStart(),
    baseRevision: patch.baseRevision,
    diff: patch.diff,
    patchDigest: patch.patchDigest,
  });
}
