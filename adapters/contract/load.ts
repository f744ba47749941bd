import { canonicalDigest } from "../canonical_json/canonical_json.ts";
import { readFile, stat } from "node:fs/promises";
import { VouchError } from "../../kernel/errors/mod.ts";
import { contractFileSchema, toOutcomeContract } from "./schema.ts";
import type { OutcomeContract } from "../../kernel/contract/types.ts";

/** Stable codes of {@linkcode ContractError}. */
export type ContractErrorCode = "contract_unreadable" | "contract_not_json" | "contract_invalid";

/**
 * A contract that could not be loaded; `issues` are `path: message` lines (fed back to generators).
 *
 * @example
 * ```ts
 * import { equal, ok } from "node:assert/strict";
 * import { ContractError, loadContract } from "./load.ts";
 * const error = await loadContract("/nonexistent/vouch.contract.json").catch((e: unknown) => e);
 * ok(error instanceof ContractError);
 * equal(error.code, "contract_unreadable");
 * ```
 */
export class ContractError extends VouchError<ContractErrorCode> {
  /** One line per problem. */
  readonly issues: readonly string[];
  /** An error with its stable code, message and problem lines. */
  constructor(code: ContractErrorCode, message: string, issues: readonly string[] = []) {
    super(code, message);
    this.issues = issues;
  }
}

/** Result of {@linkcode parseContract}. */
export type ParseContractResult =
  | { readonly ok: true; readonly contract: OutcomeContract }
  | { readonly ok: false; readonly error: ContractError };

/**
 * Validates an untrusted value (parsed JSON) as a contract. Never throws.
 *
 * @example
 * ```ts
 * import { parseContract } from "./load.ts";
 * const r = parseContract({ checks: [{ name: "t", run: ["deno", "test"], tests: "deno" }] });
 * if (!r.ok) throw r.error;
 * const bad = parseContract({ checks: [] });
 * if (bad.ok || bad.error.code !== "contract_invalid") throw new Error();
 * ```
 */
export function parseContract(value: unknown): ParseContractResult {
  const r = contractFileSchema.safeParse(value);
  if (r.success) {
    // The digest a VerifiedPatch records: of the file's JSON as given, not of the model.
    return {
      ok: true,
      contract: { ...toOutcomeContract(r.data), sourceDigest: canonicalDigest(value) },
    };
  }
  const issues = r.error.issues.map((i) =>
    `${i.path.length ? i.path.join(".") : "(root)"}: ${i.message}`
  );
  return {
    ok: false,
    error: new ContractError(
      "contract_invalid",
      `Cannot load contract: ${issues.length} problem(s): ${issues.join("; ")}`,
      issues,
    ),
  };
}

/**
 * Parses contract JSON text. Never throws.
 *
 * @example
 * ```ts
 * import { parseContractText } from "./load.ts";
 * if (parseContractText("{").ok) throw new Error();
 * ```
 */
export function parseContractText(text: string): ParseContractResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      error: new ContractError("contract_not_json", `Cannot load contract: not JSON: ${detail}`, [
        `(root): not JSON: ${detail}`,
      ]),
    };
  }
  return parseContract(value);
}

/** Largest contract file accepted. */
export const MAX_CONTRACT_BYTES = 1024 * 1024;

/**
 * Reads and validates a contract file; throws {@linkcode ContractError}.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { deepEqual, rejects } from "node:assert/strict";
 * import { loadContract } from "./load.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-"));
 * writeFileSync(`${dir}/vouch.contract.json`, JSON.stringify({
 *   description: "unit tests pass",
 *   checks: [{ name: "unit", run: "deno test" }],
 * }));
 * const contract = await loadContract(`${dir}/vouch.contract.json`);
 * deepEqual(contract.checks[0]?.run, { shell: "deno test" });
 * deepEqual(contract.checks[0]?.expect, [{ kind: "exit-zero" }]); // the default expectation
 * writeFileSync(`${dir}/broken.json`, "{");
 * await rejects(loadContract(`${dir}/broken.json`), { code: "contract_not_json" });
 * await rejects(loadContract(`${dir}/absent.json`), { code: "contract_unreadable" });
 * rmSync(dir, { recursive: true, force: true });
 * ```
 */
export async function loadContract(path: string): Promise<OutcomeContract> {
  let bytes: Uint8Array;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new Error("not a regular file");
    if (info.size > MAX_CONTRACT_BYTES) throw new Error(`larger than ${MAX_CONTRACT_BYTES} bytes`);
    bytes = new Uint8Array(await readFile(path));
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new ContractError("contract_unreadable", `Cannot load contract ${path}: ${detail}`);
  }
  const r = parseContractText(new TextDecoder().decode(bytes));
  if (!r.ok) throw r.error;
  return r.contract;
}
