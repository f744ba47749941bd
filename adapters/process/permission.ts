/**
 * A permission the runtime refused (Deno's flags, Node's permission model),
 * reported as what it is: `permission_denied`, naming the flag that grants it,
 * never as the failure it would otherwise look like (a git that cannot start
 * reads as "not a repository").
 *
 * @module
 */
import { VouchError } from "../../kernel/errors/mod.ts";

/** The runtime refused an operation vouch needed. */
export class PermissionError extends VouchError<"permission_denied"> {
  /** Builds the error. */
  constructor(message: string, options?: ErrorOptions) {
    super("permission_denied", message, options);
  }
}

/**
 * `error` as a {@link PermissionError} when it is the runtime refusing a
 * permission (Deno's `NotCapable`, Node's `ERR_ACCESS_DENIED`), else `null`.
 * The message names the flag to grant (`--allow-run`, ...).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { permissionDenied } from "./permission.ts";
 * const denied = Object.assign(
 *   new Error('Requires run access to "git", run again with the --allow-run flag'),
 *   { name: "NotCapable" },
 * );
 * equal(permissionDenied(denied)?.code, "permission_denied");
 * equal(permissionDenied(denied)?.message.endsWith("grant it with --allow-run=git"), true);
 * equal(permissionDenied(new Error("ENOENT")), null);
 * ```
 */
export function permissionDenied(error: unknown): PermissionError | null {
  if (error instanceof PermissionError) return error;
  if (!(error instanceof Error)) return null;
  const code = (error as { code?: unknown }).code;
  if (error.name === "NotCapable" || error.name === "PermissionDenied") {
    const base = /--allow-[a-z-]+/.exec(error.message)?.[0];
    const what = /^Requires (.+?),/.exec(error.message)?.[1] ?? "a permission";
    // `Requires run access to "/usr/bin/find"`: name the exact grant, not the whole flag.
    const target = /^(?:run|read|write) access to "([^"]+)"$/.exec(what)?.[1];
    const flag = base !== undefined && target !== undefined ? `${base}=${target}` : base;
    return new PermissionError(
      `Cannot run: Deno denied ${what}` +
        (flag !== undefined ? `; grant it with ${flag}` : ` (${error.message})`),
      { cause: error },
    );
  }
  if (code === "ERR_ACCESS_DENIED") {
    const perm = (error as { permission?: unknown }).permission;
    return new PermissionError(
      `Cannot run: Node's permission model denied ${
        typeof perm === "string" ? perm : "an operation"
      }; grant it with the matching --allow-* flag (${error.message})`,
      { cause: error },
    );
  }
  return null;
}

type RunQuery = { querySync(d: { name: "run"; command: string }): { state: string } };
const denoPermissions = (globalThis as { Deno?: { permissions?: RunQuery } }).Deno?.permissions;

/**
 * Throws a {@link PermissionError} naming `--allow-run=<program>` when Deno's
 * flags do not let this process start `program` (`what` says what it is for).
 * For the helpers vouch starts through node:child_process, whose refusal
 * would otherwise read as a failed helper and silently drop what it measures
 * (a cgroup, a write budget). Under Node it does nothing: Node's permission
 * model refuses the spawn itself (`ERR_ACCESS_DENIED`).
 *
 * @example
 * ```ts
 * import { throws } from "node:assert/strict";
 * import { requireRun } from "./permission.ts";
 * requireRun("/bin/sh", "the cgroup launcher", { querySync: () => ({ state: "granted" }) });
 * const denied = { querySync: () => ({ state: "prompt" }) };
 * throws(() => requireRun("/bin/sh", "the cgroup launcher", denied), /--allow-run=\/bin\/sh/);
 * ```
 */
export function requireRun(
  program: string,
  what: string,
  permissions: RunQuery | undefined = denoPermissions,
): void {
  if (permissions === undefined) return;
  if (permissions.querySync({ name: "run", command: program }).state === "granted") return;
  throw new PermissionError(
    `Cannot run: Deno denied run access to "${program}" (${what}); grant it with ` +
      `--allow-run=${program}`,
  );
}
