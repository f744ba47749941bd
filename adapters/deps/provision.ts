/**
 * Dependency provisioning of one task's clean trees: the user's installed
 * dependency directories are looked up once (or taken from a batch's shared
 * snapshots), and each tree gets them as the plan says: private, writable
 * read-only views under bwrap (of the user's own directories, or of a batch's
 * shared snapshots), private copies without a sandbox, nothing when the
 * contract has setup (setup installs into the tree itself), and a refusal when
 * the patch changes a manifest or lockfile without setup, or writes under an
 * installed dependency directory the tree is to get.
 *
 * @module
 */
import {
  type DependencyRefusalCode,
  findDependencyDirs,
  planDependencies,
} from "./dependency_plan.ts";
import { withoutConfigOnlyManifests } from "./_manifest_fields.ts";
import { provideDependencyDirs, type ProvideMode } from "./provide.ts";
import type { DependencySnapshots, DependencyView } from "./shared.ts";

/** Options of {@linkcode createDependencyProvisioner}. */
export interface DependencyProvisionerOptions {
  /** The user's repository (top level): where the installed directories are. */
  readonly repo: string;
  /** Whether the contract has setup commands (then nothing is copied). */
  readonly hasSetup: boolean;
  /**
   * A batch's shared snapshots: looked up there, and given as read-only views
   * when `views` is true (only bwrap can make them read-only; else copies).
   */
  readonly snapshots?: DependencySnapshots;
  /**
   * Give read-only views (bwrap binds them): of the shared snapshots with
   * `snapshots`, else of the user's own directories, entry by entry (see
   * `provideDependencyDirs`). False: private copies. @default false
   */
  readonly views?: boolean;
  /** Told each sub-step with its size, before it starts (`copying node_modules, 66 MB`). */
  readonly onStep?: (step: string) => void;
}

/** What a tree got: its read-only views (bound by the sandbox), or why the patch is refused. */
export type Provision =
  | { readonly ok: true; readonly views: readonly DependencyView[] }
  | { readonly ok: false; readonly code: DependencyRefusalCode; readonly reason: string };

/** Provisions one task's trees; see {@linkcode createDependencyProvisioner}. */
export interface DependencyProvisioner {
  /** Provides the dependencies of `tree` (absolute) for a patch changing `changed`. */
  provide(tree: string, changed: readonly string[]): Promise<Provision>;
}

/**
 * Creates the provisioner of one task. Without setup, the installed
 * directories are looked up at once (while the first tree is checked out).
 * Throws `DependencyCopyError` when a copy fails.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdtempSync, rmSync } from "node:fs";
 * import { equal } from "node:assert/strict";
 * import { createDependencyProvisioner } from "./provision.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-"));
 * const p = createDependencyProvisioner({ repo: dir, hasSetup: false });
 * const got = await p.provide(dir, ["package.json"]);
 * equal(got.ok, false);
 * rmSync(dir, { recursive: true, force: true });
 * ```
 */
export function createDependencyProvisioner(
  opts: DependencyProvisionerOptions,
): DependencyProvisioner {
  return new TreeProvisioner(opts);
}

/** One task's provisioning: the installed directories (looked up once) and the mode. */
class TreeProvisioner implements DependencyProvisioner {
  readonly #opts: DependencyProvisionerOptions;
  readonly #mode: ProvideMode;
  #installed: Promise<string[]> | null = null;

  constructor(opts: DependencyProvisionerOptions) {
    this.#opts = opts;
    this.#mode = opts.views !== true
      ? { kind: "copy" }
      : opts.snapshots !== undefined
      ? { kind: "shared", snapshots: opts.snapshots }
      : { kind: "bind" };
    if (!opts.hasSetup) void this.#getInstalled();
  }

  async provide(tree: string, changed: readonly string[]): Promise<Provision> {
    const opts = this.#opts;
    // A package.json edit that leaves its install fields alone (a mocha config) installs nothing new.
    const deps = opts.hasSetup ? changed : await withoutConfigOnlyManifests(tree, changed);
    const plan = planDependencies(deps, opts.hasSetup ? [] : await this.#getInstalled(), {
      hasSetup: opts.hasSetup,
      written: changed,
    });
    if (plan.mode === "refuse") return { ok: false, code: plan.code, reason: plan.reason };
    return {
      ok: true,
      views: (await provideDependencyDirs(plan, opts.repo, tree, this.#mode, opts.onStep)).views,
    };
  }

  #getInstalled(): Promise<string[]> {
    const opts = this.#opts;
    return this.#installed ??= opts.snapshots?.installed(opts.repo) ??
      findDependencyDirs(opts.repo).catch(() => []);
  }
}
