/**
 * The paths a patch may never touch unless explicitly allowed (what
 * `DEFAULT_FORBID` lists), each glob with the one line that says why, so a
 * refusal can name its reason: CI and git-hook configuration (the oracle set's
 * own list), installed dependencies (`node_modules/`, `.venv/`), Python bytecode, vouch's state and git's
 * own directory.
 *
 * @module
 */
import { AUTOMATION_CONFIG_GLOBS } from "../oracle/oracle_set.ts";

/** One default forbidden glob and why a patch may not touch what it matches. */
export interface DefaultForbidRule {
  /** The glob (gitignore syntax, as `--forbid` takes it). */
  readonly glob: string;
  /** Why, in words, for the refusal's line. */
  readonly why: string;
}

const DEPENDENCIES =
  "installed dependencies (node_modules/): a patch never carries them; a fake runner or " +
  "library there would judge the patch";
const VENV =
  "a virtual environment (.venv/): installed dependencies, never part of a patch; a fake " +
  "python or pytest there would judge the patch";
const EXTENSION =
  "a compiled module (*.so, *.pyd): Python imports calc.so before calc.py beside it, so it " +
  "could replace code or a test unseen";
const BYTECODE =
  "Python bytecode: Python imports it instead of the source beside it, so it could replace " +
  "code or a test unseen";

/**
 * The default forbidden globs, in order, each with its reason.
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { DEFAULT_FORBID_RULES } from "./default_forbid.ts";
 * ok(DEFAULT_FORBID_RULES.some((r) => r.glob === "**\/node_modules/**"));
 * ```
 */
export const DEFAULT_FORBID_RULES: readonly DefaultForbidRule[] = [
  ...AUTOMATION_CONFIG_GLOBS.map((glob) => ({
    glob,
    why: "CI or git-hook configuration: it decides what runs and may not change with the patch",
  })),
  { glob: "**/node_modules/**", why: DEPENDENCIES },
  { glob: "**/.venv/**", why: VENV },
  { glob: "**/__pycache__/**", why: BYTECODE },
  { glob: "*.pyc", why: BYTECODE },
  { glob: "*.pyo", why: BYTECODE },
  { glob: "*.so", why: EXTENSION },
  { glob: "*.pyd", why: EXTENSION },
  { glob: ".vouch/**", why: "vouch's own state" },
  { glob: ".git/**", why: "git's own directory" },
];

/**
 * Why a default forbidden glob forbids, or `null` when `glob` is not one of
 * {@link DEFAULT_FORBID_RULES}.
 *
 * @example
 * ```ts
 * import { equal, match } from "node:assert/strict";
 * import { defaultForbidReason } from "./default_forbid.ts";
 * match(defaultForbidReason("*.pyc") ?? "", /^Python bytecode/);
 * equal(defaultForbidReason("dist/**"), null);
 * ```
 */
export function defaultForbidReason(glob: string): string | null {
  return DEFAULT_FORBID_RULES.find((r) => r.glob === glob)?.why ?? null;
}
