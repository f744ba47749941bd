/**
 * Sandbox profiles for child processes: `bwrap` (bubblewrap with an
 * allowlisted root: system and toolchain directories read-only, the worktree
 * read-write, `.git` read-only, vouch's keys and state never mounted, private
 * HOME and size-capped /tmp, no network unless shared, own pid namespace),
 * the explicit `none`, resource limits, and the bwrap argv they become. Runs
 * nothing itself (the process runner uses it); probing whether a profile
 * works on this host, and the policy that refuses rather than downgrades,
 * live in `adapters/host`. Must never silently fall back from `bwrap` to
 * `none`.
 *
 * @module
 */
export * from "./profile.ts";
export * from "./bwrap.ts";
export * from "./dependency_views.ts";
export * from "./limits.ts";
export * from "./agent_profile.ts";
export * from "./process_uid.ts";
