/**
 * Dependency directories seen read-only inside a bwrap worktree: a batch's
 * shared snapshots bound whole, or the user's own directories bound entry by
 * entry into a private tmpfs (see {@linkcode withDependencyViews}).
 *
 * @module
 */
import { realpathSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import type { BwrapSandbox } from "./profile.ts";
import { SandboxError } from "./profile.ts";

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

const within = (path: string, dir: string) => path === dir || path.startsWith(dir + "/");

/**
 * The profile with dependency directories bound read-only inside the
 * worktree. A whole view (a batch's shared snapshot: `source` at `path`) gets
 * a private, writable tmpfs at its `scratch` (its `.cache`). A layered view
 * (one with `entries`: the user's own directory in `verify`/`run`) becomes a
 * private, writable tmpfs at `path` with each entry of `source` bound
 * read-only into it and each symlink re-made: nothing of `source` can be
 * written, new names (`.cache`) stay private. A view outside the profile's
 * writable worktree is refused (`sandbox_invalid`): views only ever replace a
 * path of the tree.
 *
 * @example
 * ```ts
 * import { deepEqual, equal, ok } from "node:assert/strict";
 * import { bwrapArgv } from "./bwrap.ts";
 * import { withDependencyViews } from "./dependency_views.ts";
 * const p = withDependencyViews(
 *   { kind: "bwrap", bwrapPath: "/usr/bin/bwrap", writable: ["/wt"], readOnly: [], hiddenDirs: [], hiddenFiles: [] },
 *   [{ source: "/snap/1/node_modules", path: "/wt/node_modules", scratch: "/wt/node_modules/.cache" }],
 * );
 * const argv = bwrapArgv(p, ["true"], "/wt", {});
 * const i = argv.indexOf("/snap/1/node_modules");
 * deepEqual(argv.slice(i - 1, i + 2), ["--ro-bind", "/snap/1/node_modules", "/wt/node_modules"]);
 * ok(argv.indexOf("/wt/node_modules/.cache") > i);
 * // The user's own directory, entry by entry into a private tmpfs.
 * const layered = withDependencyViews(
 *   { kind: "bwrap", bwrapPath: "/usr/bin/bwrap", writable: ["/wt"], readOnly: [], hiddenDirs: [], hiddenFiles: [] },
 *   [{ source: "/repo/node_modules", path: "/wt/node_modules", scratch: null, entries: [
 *     { name: "mocha", symlink: null }, { name: ".bin", symlink: null },
 *     { name: ".cache", symlink: null, privateDir: true },
 *     { name: "local", symlink: "../packages/local" },
 *   ] }],
 * );
 * const a = bwrapArgv(layered, ["true"], "/wt", {});
 * const t = a.indexOf("/wt/node_modules");
 * equal(a[t - 1], "--tmpfs");
 * const m = a.indexOf("/repo/node_modules/mocha");
 * ok(m > t);
 * deepEqual(a.slice(m - 1, m + 2), ["--ro-bind", "/repo/node_modules/mocha", "/wt/node_modules/mocha"]);
 * ok(a.includes("../packages/local"));
 * deepEqual(a.slice(a.indexOf("/wt/node_modules/.cache") - 1, a.indexOf("/wt/node_modules/.cache") + 1), ["--dir", "/wt/node_modules/.cache"]);
 * ```
 */
export function withDependencyViews(
  profile: BwrapSandbox,
  views: readonly {
    readonly source: string;
    readonly path: string;
    readonly scratch: string | null;
    readonly entries?: readonly {
      readonly name: string;
      readonly symlink: string | null;
      readonly privateDir?: boolean;
    }[];
  }[],
): BwrapSandbox {
  if (views.length === 0) return profile;
  const whole = views.filter((v) => v.entries === undefined);
  const layers = views.filter((v) => v.entries !== undefined).map((v) => {
    const path = exists(v.path) ? realpathSync(v.path) : v.path;
    const entries = v.entries ?? [];
    for (const e of entries) {
      if (e.name === "" || e.name === "." || e.name === ".." || e.name.includes("/")) {
        throw new SandboxError("sandbox_invalid", `Cannot bind the dependency entry ${e.name}`);
      }
    }
    return {
      path,
      binds: entries.filter((e) => e.symlink === null && e.privateDir !== true)
        .map((e) => ({ source: join(v.source, e.name), path: join(path, e.name) })),
      links: entries.flatMap((e) =>
        e.symlink === null ? [] : [{ target: e.symlink, path: join(path, e.name) }]
      ),
      dirs: entries.filter((e) => e.symlink === null && e.privateDir === true)
        .map((e) => join(path, e.name)),
    };
  });
  for (const l of layers) {
    if (!profile.writable.some((w) => l.path !== w && within(l.path, w))) {
      throw new SandboxError(
        "sandbox_invalid",
        `Cannot bind the dependency view ${l.path}: not inside the worktree`,
      );
    }
  }
  const withLayers = layers.length === 0
    ? profile
    : { ...profile, layers: [...(profile.layers ?? []), ...layers] };
  if (whole.length === 0) return withLayers;
  return wholeViews(withLayers, whole);
}

function wholeViews(
  profile: BwrapSandbox,
  views: readonly {
    readonly source: string;
    readonly path: string;
    readonly scratch: string | null;
  }[],
): BwrapSandbox {
  // At the real paths the worktree is bound at (the mount points exist unless in a test).
  const real = (p: string) => exists(p) ? realpathSync(p) : p;
  const resolved = views.map((v) => ({
    source: v.source,
    path: real(v.path),
    scratch: v.scratch === null ? null : join(real(v.path), basename(v.scratch)),
  }));
  for (const v of resolved) {
    if (!profile.writable.some((w) => v.path !== w && within(v.path, w))) {
      throw new SandboxError(
        "sandbox_invalid",
        `Cannot bind the dependency view ${v.path}: not inside the worktree`,
      );
    }
  }
  return {
    ...profile,
    views: [...(profile.views ?? []), ...resolved.map(({ source, path }) => ({ source, path }))],
    tmpfs: [
      ...(profile.tmpfs ?? []),
      ...resolved.flatMap((v) => (v.scratch === null ? [] : [v.scratch])),
    ],
  };
}
