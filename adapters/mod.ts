/**
 * Everything that touches the outside world: validation of incoming bytes,
 * canonical JSON, hashing, git, processes, the sandbox, the event log store and
 * coding backends. Adapters translate the world into kernel events and kernel
 * actions into operations; they never decide a verdict the kernel should decide.
 *
 * @module
 */
export * from "./digest/mod.ts";
export * from "./canonical_json/mod.ts";
export * from "./process/mod.ts";
export * from "./sandbox/mod.ts";
export * from "./host/mod.ts";
export * from "./git/mod.ts";
export * from "./log/mod.ts";
export * from "./worktree/mod.ts";
export * from "./backends/mod.ts";
export * from "./keys/mod.ts";
export * from "./receipts/mod.ts";
export * from "./verified_patch/mod.ts";
export * from "./test_failures/mod.ts";
export * from "./bundle/mod.ts";
export * from "./contract/mod.ts";
export * from "./verify_command/mod.ts";
export * from "./deps/mod.ts";
export * from "./derive_contract/mod.ts";
export * from "./redact/mod.ts";
export * from "./attest/mod.ts";
export * from "./verification/mod.ts";
export * from "./driver/mod.ts";
export * from "./audit/mod.ts";
