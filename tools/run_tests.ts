/**
 * `deno task test`: runs the phases of `tests/_phases.ts` in order with the
 * same Deno, each with its output passed through (CI sums the
 * `ok | N passed | N failed` line of each), and stops at the first phase that
 * fails, exiting with its status.
 *
 * @module
 */
import process from "node:process";
import { PHASES } from "../tests/_phases.ts";

for (const phase of PHASES) {
  console.log(`test: ${phase.name}`);
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: ["test", ...phase.args],
    env: { ...(phase.env ?? {}) },
    stdin: "null",
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (code !== 0) process.exit(code);
}
