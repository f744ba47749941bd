/**
 * Sandbox profiles for child processes: `bwrap` (bubblewrap: read-only root,
 * worktree read-write, `.git` read-only, secrets hidden, private /tmp, no
 * network, own pid namespace) and the explicit `none`, and the bwrap argv they
 * become. Runs nothing itself (the process runner uses it); probing whether a
 * profile works on this host, and the policy that refuses rather than
 * downgrades, live in `adapters/host`. Must never silently fall back from
 * `bwrap` to `none`.
 *
 * @module
 */
export * from "./profile.ts";
export * from "./bwrap.ts";
