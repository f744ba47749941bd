/**
 * Everything that touches the outside world: validation of incoming bytes,
 * canonical JSON, hashing, git, processes, the sandbox, the event log store and
 * coding backends. Adapters translate the world into kernel events and kernel
 * actions into operations; they never decide a verdict the kernel should decide.
 *
 * Deliberately not a barrel: the package's public API is the root `mod.ts`
 * facade plus the `./backends` and `./log` entry points (see deno.json
 * `exports` and tests/api/exports.json). Each folder here has its own `mod.ts`;
 * the folders import each other without cycles (tests/layering).
 *
 * @module
 */
export {};
