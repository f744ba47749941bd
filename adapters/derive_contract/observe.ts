import { runProcess } from "../process/run.ts";
import type { SandboxProfile } from "../sandbox/profile.ts";
import { parseFailingTests } from "../test_failures/parse.ts";
import type { VerifyCommand } from "../verify_command/detect.ts";
import type { FailureObserver } from "./derive.ts";

/**
 * A {@linkcode FailureObserver} that runs the verify command in `cwd` under
 * the sandbox and parses the failing tests from its output (empty when the
 * command has no parser or nothing could be learned).
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import type { VerifyCommand } from "../verify_command/detect.ts";
 * import { failureObserver } from "./observe.ts";
 * const observe = failureObserver({ cwd: "/tmp", sandbox: { kind: "none" }, timeoutMs: 60_000 });
 * const tap: VerifyCommand = {
 *   run: { shell: "printf 'TAP version 13\\nok 1 - adds\\nnot ok 2 - divides\\n1..2\\n'; exit 1" },
 *   tests: "tap",
 *   source: "explicit",
 * };
 * deepEqual(await observe(tap), ["divides"]);
 * deepEqual(await observe({ ...tap, tests: null }), []); // no parser: nothing learned
 * ```
 */
export function failureObserver(
  options: { cwd: string; sandbox: SandboxProfile; timeoutMs: number },
): FailureObserver {
  return async (verify: VerifyCommand) => {
    const r = await runProcess({
      ...("argv" in verify.run ? { argv: verify.run.argv } : { shell: verify.run.shell }),
      cwd: options.cwd,
      sandbox: options.sandbox,
      timeoutMs: options.timeoutMs,
      maxCaptureBytes: 1024 * 1024,
    });
    if (verify.tests === null || r.spawnError !== null) return [];
    const text = (s: typeof r.stdout) => s.truncated ? `${s.head}\n${s.tail}` : s.head;
    return parseFailingTests(verify.tests, `${text(r.stdout)}\n${text(r.stderr)}`).failing;
  };
}
