/**
 * The parse surface of a boundary schema as the public API names it. Every
 * exported value of type {@linkcode BoundarySchema} is a zod schema; the type
 * lists only what an embedder calls, so the reference does not depend on zod's
 * internal types.
 *
 * @module
 */

/** One problem a schema found in a value. */
export interface SchemaIssue {
  /** Where in the value (keys and indices from the root). */
  readonly path: readonly PropertyKey[];
  /** What is wrong, for humans. */
  readonly message: string;
}

/** What {@linkcode BoundarySchema.safeParse} returns: the parsed value or the issues. */
export type SchemaParseResult<T> =
  | { readonly success: true; readonly data: T }
  | { readonly success: false; readonly error: { readonly issues: readonly SchemaIssue[] } };

/**
 * A schema guarding a boundary: `parse` throws on a bad value, `safeParse` never throws.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import type { BoundarySchema } from "./mod.ts";
 * const s: BoundarySchema<{ n: number }> = z.object({ n: z.number() });
 * const r = s.safeParse({ n: "x" });
 * if (r.success || r.error.issues[0]?.path[0] !== "n") throw new Error();
 * if (s.parse({ n: 1 }).n !== 1) throw new Error();
 * ```
 */
export interface BoundarySchema<T> {
  /** The value parsed, or a thrown error naming the issues. */
  parse(value: unknown): T;
  /** The value parsed, or the issues; never throws. */
  safeParse(value: unknown): SchemaParseResult<T>;
}
