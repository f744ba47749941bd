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
 * equal(permissionDenied(new Error("ENOENT")), null);
 * ```
 */
export function permissionDenied(error: unknown): PermissionError | null {
  if (error instanceof PermissionError) return error;
  if (!(error instanceof Error)) return null;
  const code = (error as { code?: unknown }).code;
  if (error.name === "NotCapable" || error.name === "PermissionDenied") {
    const flag = /--allow-[a-z-]+/.exec(error.message)?.[0];
    const what = /^Requires (.+?),/.exec(error.message)?.[1] ?? "a permission";
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
