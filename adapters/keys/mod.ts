/**
 * Key management: the per-repository HMAC key that seals receipts and verified
 * patches, and the Ed25519 key that signs attestations. Keys live in the user's
 * state directory (`$XDG_STATE_HOME/vouch/keys`, mode 0600) or `VOUCH_KEY_FILE`,
 * never inside a repository or worktree, and are persisted so receipts verify
 * after vouch exits. This module must never hand key bytes to a child process.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdtempSync, rmSync } from "node:fs";
 * import { loadOrCreateMacKey } from "./mod.ts";
 * const state = mkdtempSync(join(tmpdir(), "vouch-"));
 * const repo = mkdtempSync(join(tmpdir(), "vouch-"));
 * const key = await loadOrCreateMacKey({ repoRoot: repo, env: { XDG_STATE_HOME: state } });
 * if (!key.path.startsWith(state)) throw new Error();
 * rmSync(state, { recursive: true, force: true });
 * rmSync(repo, { recursive: true, force: true });
 * ```
 *
 * @module
 */
export * from "./errors.ts";
export * from "./paths.ts";
export * from "./mac_key.ts";
export * from "./fleet_key.ts";
export * from "./signing_key.ts";
export * from "./key_material.ts";
