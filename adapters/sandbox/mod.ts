/**
 * Sandbox profiles for child processes: `bwrap` (bubblewrap: read-only root,
 * worktree read-write, `.git` read-only, secrets hidden, private /tmp, no
 * network, own pid namespace) and the explicit `none`; a runtime probe and a
 * policy that refuses rather than downgrades. Must never silently fall back
 * from `bwrap` to `none`.
 *
 * @module
 */
export * from "./profile.ts";
export * from "./bwrap.ts";
export * from "./probe.ts";
export * from "./doctor.ts";
