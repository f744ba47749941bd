/**
 * The one base class of every error vouch throws on purpose. Each boundary
 * (diff parser, globs, log, keys, sandbox, backends, ...) subclasses it with its
 * own `code` literal union; every code is a stable snake_case word that callers
 * and the CLI branch on. Anything thrown that is not a `VouchError` is a bug.
 *
 * Lives in `kernel/` so the kernel's own errors can extend it; adapters and the
 * CLI import it from here (the dependency points inward, as the layering wants).
 *
 * @module
 */

/** The shape every stable error code has: lower-case words joined by `_`. */
export const ERROR_CODE_PATTERN: RegExp = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

/**
 * An error vouch raises on purpose, with a stable machine-readable `code`.
 * Subclasses narrow `C` to their boundary's literal union.
 *
 * @example Subclassing for a boundary and branching on the code
 * ```ts
 * import { equal, ok } from "node:assert/strict";
 * import { isVouchError, VouchError } from "./mod.ts";
 *
 * type ThingErrorCode = "not_found" | "too_big";
 * class ThingError extends VouchError<ThingErrorCode> {}
 *
 * const error: unknown = new ThingError("too_big", "Cannot read thing: 9 MiB > 1 MiB");
 * ok(isVouchError(error));
 * equal(error.code, "too_big");
 * equal(error.name, "ThingError");
 * ok(error instanceof Error);
 * ```
 */
export class VouchError<C extends string = string> extends Error {
  /** The stable reason, snake_case. */
  readonly code: C;

  /** Builds the error; `name` is the subclass's name. */
  constructor(code: C, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    Object.defineProperty(this, VOUCH_ERROR_BRAND, { value: true });
  }

  /**
   * `x instanceof VouchError` holds for a VouchError made by ANY copy of vouch in the process
   * (the npm package's ESM and CommonJS builds, two entry points' CommonJS bundles): they share
   * a registered symbol. Subclasses keep ordinary `instanceof`.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (this !== VouchError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === "object" && value !== null &&
      (value as Record<symbol, unknown>)[VOUCH_ERROR_BRAND] === true;
  }
}

/** The mark every {@link VouchError} carries (a registered symbol: one per process, not per copy). */
const VOUCH_ERROR_BRAND: unique symbol = Symbol.for("@vouch/vouch#VouchError");

/**
 * Whether `value` is a {@link VouchError} (of any boundary).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { isVouchError, VouchError } from "./mod.ts";
 * equal(isVouchError(new VouchError("locked", "Cannot open log: locked")), true);
 * equal(isVouchError(new TypeError("x")), false);
 * ```
 */
export function isVouchError(value: unknown): value is VouchError {
  return value instanceof VouchError;
}
