/**
 * The contract `--verify CMD` stands for, and the contract file equivalent to
 * it (whose canonical digest is the `contractDigest` of a patch verified with
 * `--verify CMD`).
 *
 * @module
 */
import type { OutcomeContract } from "../../kernel/contract/types.ts";
import { canonicalDigest } from "../canonical_json/canonical_json.ts";

/**
 * The contract file equivalent to `--verify CMD`:
 * `{"checks":[{"name":"verify","run":CMD,"timeout":SECONDS}]}` (plus `protect`
 * when given). Its canonical digest is the `contractDigest` of a patch
 * verified with `--verify CMD`.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { commandContractFile } from "./from_command.ts";
 * deepEqual(commandContractFile("deno test", 600_000), {
 *   checks: [{ name: "verify", run: "deno test", timeout: 600 }],
 * });
 * ```
 */
export function commandContractFile(
  command: string,
  timeoutMs: number,
  protect: readonly string[] = [],
): { checks: { name: string; run: string; timeout: number }[]; protect?: string[] } {
  return {
    checks: [{ name: "verify", run: command, timeout: timeoutMs / 1000 }],
    ...(protect.length > 0 ? { protect: [...protect] } : {}),
  };
}

/**
 * The one-check contract `--verify CMD` stands for: run CMD with `sh -c` in the
 * clean tree; exit zero passes.
 *
 * @example
 * ```ts
 * import { contractFromCommand } from "./from_command.ts";
 * const c = contractFromCommand("deno test", 60_000);
 * if (c.checks[0]?.name !== "verify") throw new Error();
 * ```
 */
export function contractFromCommand(
  command: string,
  timeoutMs: number,
  protect: readonly string[] = [],
): OutcomeContract {
  return {
    sourceDigest: canonicalDigest(commandContractFile(command, timeoutMs, protect)),
    description: `\`${command}\` exits 0`,
    checks: [{
      name: "verify",
      run: { shell: command },
      expect: [{ kind: "exit-zero" }],
      timeoutMs,
      baseline: false,
      differential: null,
      tests: null,
    }],
    protect,
  };
}
