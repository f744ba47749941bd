/**
 * `deno task test`: runs the phases of `tests/_phases.ts` with the same Deno
 * (`--fast`, as `deno task test:fast` does: only the kernel and unit phases),
 * all at once, each as its own `deno test` process (the type checks, each
 * once, as `deno check` processes beside them) (a phase's files share
 * that process's environment and working directory, never another phase's),
 * so that the machine's cores stay busy while the serial phase goes one file
 * at a time. Each phase's output is kept whole and printed in phase order
 * (CI sums the `ok | N passed | N failed` line of each), with the phase's
 * wall time; the task exits with the status of the first phase that failed.
 *
 * @module
 */
import process from "node:process";
import { FAST_PHASES, PHASES as ALL } from "../tests/_phases.ts";

const PHASES = Deno.args.includes("--fast") ? FAST_PHASES : ALL;

/** One phase's run: its exit status, its whole output and its wall time. */
interface Finished {
  readonly code: number;
  readonly output: Uint8Array;
  readonly seconds: number;
}

async function collect(stream: ReadableStream<Uint8Array>, into: Uint8Array[]): Promise<void> {
  for await (const chunk of stream) into.push(chunk);
}

async function runPhase(
  command: "test" | "check",
  args: readonly string[],
  env: Record<string, string>,
): Promise<Finished> {
  const start = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: [command, ...args],
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // stdout and stderr in one buffer, in the order they arrive (as a terminal shows them).
  const chunks: Uint8Array[] = [];
  const [status] = await Promise.all([
    child.status,
    collect(child.stdout, chunks),
    collect(child.stderr, chunks),
  ]);
  const output = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    output.set(c, at);
    at += c.length;
  }
  return { code: status.code, output, seconds: (performance.now() - start) / 1000 };
}

const start = performance.now();
for (const phase of PHASES) console.log(`test: ${phase.name}: started`);
const runs = PHASES.map((phase) =>
  runPhase(phase.command ?? "test", phase.args, { ...(phase.env ?? {}) })
);
let failed: number | null = null;
for (const [i, phase] of PHASES.entries()) {
  const run = await runs[i]!;
  console.log(`test: ${phase.name}`);
  for (let at = 0; at < run.output.length;) at += await Deno.stdout.write(run.output.subarray(at));
  console.log(`test: ${phase.name}: exit ${run.code} after ${run.seconds.toFixed(0)} s`);
  if (run.code !== 0 && failed === null) failed = run.code;
}
console.log(`test: all phases done after ${((performance.now() - start) / 1000).toFixed(0)} s`);
if (failed !== null) process.exit(failed);
