/**
 * The path rules a verified patch was judged against, sealed into it.
 *
 * @module
 */

/** The path rules the patch was judged against (`--allow`, `--forbid`, the contract's `protect`). */
export interface PathPolicy {
  /** Globs every changed path had to match (empty: no limit). */
  readonly allow: readonly string[];
  /** Globs no changed path could match. */
  readonly forbid: readonly string[];
  /** The contract's protected globs (the tests that define done). */
  readonly protect: readonly string[];
}
