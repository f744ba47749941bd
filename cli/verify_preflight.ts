/**
 * A `--verify` command that cannot start is said before anything is spent on
 * it (no tree, no baseline, no dependency copy): COULD NOT RUN, exit 5, with
 * the stable reason `verify_command_cannot_start`.
 *
 * @module
 */
import { verifyCommandCannotStart } from "../adapters/verify_command/preflight.ts";
import { VERDICTS } from "../adapters/driver/verdicts.ts";

/** Why the command cannot start (the sentence the CLI prints), or null when it may. */
export interface UnstartableCommand {
  readonly reason: "verify_command_cannot_start";
  readonly message: string;
}

/**
 * Asks {@linkcode verifyCommandCannotStart}; returns the refusal to report, or null.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { unstartableVerifyCommand } from "./verify_preflight.ts";
 * const r = await unstartableVerifyCommand("nosuchcmd-vouch");
 * equal(r?.message, "the verify command cannot start: nosuchcmd-vouch: not found on PATH; nothing was run");
 * equal(await unstartableVerifyCommand("true"), null);
 * ```
 */
export async function unstartableVerifyCommand(
  command: string,
): Promise<UnstartableCommand | null> {
  const why = await verifyCommandCannotStart(command);
  return why === null ? null : {
    reason: "verify_command_cannot_start",
    message: `the verify command cannot start: ${why}; nothing was run`,
  };
}

/** The human line of a refusal: the verdict table's word, the reason, the sentence. */
export function renderUnstartable(u: UnstartableCommand): string {
  return `${VERDICTS.could_not_run.word} (${u.reason}): ${u.message}\n`;
}
