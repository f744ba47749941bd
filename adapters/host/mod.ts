/**
 * What this host offers vouch, found by running things for real: whether each
 * sandbox profile actually works here (`probeSandbox`), the policy that picks
 * one and refuses rather than downgrades (`selectSandbox`), and the `vouch
 * doctor` report (git version, process-group kills, the sandbox probe). Sits
 * above `process`, `git` and `sandbox`, which it uses; none of them import it.
 *
 * @module
 */
export * from "./sandbox_probe.ts";
export * from "./doctor.ts";
