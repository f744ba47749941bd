/**
 * The CLI's own start (issue 21: the start is the largest part of vouch's own
 * time per run, and the test suites start the CLI hundreds of times): the CPU
 * of `deno run --no-prompt -A cli/main.ts --version` and of `vouch verify
 * --help` (the command table, then one command's module graph), against a bare
 * `deno run` of `console.log(1)` in the same run. CPU, not wall time: what the
 * kernel charges to the reaped child (`/proc/self/stat` cutime + cstime), summed
 * over the rounds and divided (clock ticks are 10 ms; the mean over many starts
 * is exact enough, a median of ticks is not). Commands load on demand and zod
 * schemas are built on first use, so neither start builds a schema.
 *
 * Budgets: `cli.start.version` `<= 5x` the bare start (about 10x, 0.237 s
 * CPU, when the command table imported every command; about 3.5-4x, 0.07-0.08
 * s, since), `cli.start.verify_help` `<= 9x` (verify's whole module graph,
 * about 220 modules and zod, is loaded: about 11x before, 6.5-7.5x since). What
 * is left of `--version` over the bare start is mostly Deno's node: layer
 * (node:process, node:fs, node:tty: about 30 ms).
 */
import type { BudgetSpec, Measured } from "./_budget.ts";

const MAIN = new URL("../cli/main.ts", import.meta.url).pathname;
const dir = Deno.makeTempDirSync({ prefix: "vouch-bench-start-" });
const BARE = `${dir}/bare.ts`;
Deno.writeTextFileSync(BARE, "console.log(1);\n");
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));

/** User + system CPU ms of this process's reaped children (`/proc/self/stat`, clock ticks). */
function childrenCpuMs(): number {
  const f = Deno.readTextFileSync("/proc/self/stat").split(") ")[1]!.split(" ");
  return (Number(f[13]) + Number(f[14])) * 10;
}

async function start(args: string[]): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "-A", ...args],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`deno run ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
}

const version = () => start([MAIN, "--version"]);
const verifyHelp = () => start([MAIN, "verify", "--help"]);
const bare = () => start([BARE]);

Deno.bench({
  group: "cli start",
  name: "bare deno run console.log(1)",
  baseline: true,
  fn: async () => await bare(),
});
Deno.bench({ group: "cli start", name: "vouch --version", fn: async () => await version() });
Deno.bench({ group: "cli start", name: "vouch verify --help", fn: async () => await verifyHelp() });

/** Mean children CPU per start of `subject` and of `bare`, interleaved (the order alternates). */
async function cpuPerStart(subject: () => Promise<void>, rounds: number): Promise<Measured> {
  await subject();
  await bare();
  const sums = { subject: 0, peer: 0 };
  const timed = async (fn: () => Promise<void>, side: "subject" | "peer") => {
    const c0 = childrenCpuMs();
    await fn();
    sums[side] += childrenCpuMs() - c0;
  };
  for (let i = 0; i < rounds; i++) {
    if (i % 2 === 0) {
      await timed(subject, "subject");
      await timed(bare, "peer");
    } else {
      await timed(bare, "peer");
      await timed(subject, "subject");
    }
  }
  return {
    subject: sums.subject / rounds,
    peer: sums.peer / rounds,
    unit: "ms",
    samples: rounds,
    note: `CPU of the started process (user + system, mean of ${rounds} starts; ` +
      `load ${Deno.loadavg()[0]!.toFixed(1)})`,
  };
}

/** The `bench:check` budgets (see docs/benchmarks.md). */
export const budgets: readonly BudgetSpec[] = [{
  id: "cli.start.version",
  measures: "CPU of `deno run --no-prompt -A cli/main.ts --version` (the command table only)",
  peer: "bare `deno run` of console.log(1)",
  bound: "<= 5x",
  measure: () => cpuPerStart(version, 20),
}, {
  id: "cli.start.verify_help",
  measures: "CPU of `vouch verify --help` (the table, then verify's module graph)",
  peer: "bare `deno run` of console.log(1)",
  bound: "<= 9x",
  measure: () => cpuPerStart(verifyHelp, 20),
}];
