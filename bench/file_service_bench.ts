/**
 * The file helper (adapters/backends/_file_service.ts): what serving an
 * agent's `fs/*` request through the long-lived in-sandbox helper costs
 * against vouch reading the file in its own process (what it did before the
 * helper, and must not do now). Targets (issue 20): ≤ 2 ms added per request
 * at p50 and ≥ 500 requests/s. `deno bench` reports each case against the
 * in-process baseline; `deno run -A bench/file_service_bench.ts [N]` prints
 * p50/p90 and requests/s over N sequential requests per case (default 2000);
 * `deno task bench:check` checks the budgets below. The bench functions must
 * be `async` functions: Deno times a plain function returning a promise as
 * synchronous.
 *
 * The throughput peer is the floor of any helper: a trivial echo program on
 * the same runtime in the same sandbox, answering one line per line. A
 * sequential request is a round trip between two processes, two wake-ups:
 * on a loaded machine the scheduler sets that floor, and the ratio to it is
 * the figure that holds.
 */
import { readFile, writeFile } from "node:fs/promises";
import type { Writable } from "node:stream";
import { join } from "node:path";
import { fileService } from "../adapters/backends/_file_service.ts";
import { evalArgv, helperRuntime } from "../adapters/backends/_helper_runtime.ts";
import { probeSandbox } from "../adapters/host/sandbox_probe.ts";
import { runProcess } from "../adapters/process/run.ts";
import { bwrapProfile } from "../adapters/sandbox/bwrap.ts";
import type { SandboxProfile } from "../adapters/sandbox/profile.ts";
import { type BudgetSpec, interleaved, median } from "./_budget.ts";

const worktree = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "vouch-bench-fs-" }));
Deno.mkdirSync(join(worktree, "src/lib"), { recursive: true });
// A typical source file (4 KiB), two directories deep.
const content = "export const x = 1;\n".repeat(205);
Deno.writeTextFileSync(join(worktree, "src/lib/mod.ts"), content);
const bytes = new TextEncoder().encode(content);
const probe = await probeSandbox();
const bwrap = probe.bwrap.available ? bwrapProfile({ worktree }) : null;
if (bwrap === null) console.error(`bwrap cases skipped: ${probe.bwrap.reason}`);
const none = fileService({ worktree, sandbox: { kind: "none" } });
const confined = bwrap !== null ? fileService({ worktree, sandbox: bwrap }) : null;

async function helperRead(files: typeof none): Promise<void> {
  const r = await files.read("src/lib/mod.ts", 1024 * 1024);
  if (!r.ok || r.data.length !== bytes.length) throw new Error("bad read");
}
async function helperWrite(files: typeof none): Promise<void> {
  const r = await files.write("src/lib/out.ts", bytes);
  if (!r.ok) throw new Error(r.message);
}
async function inProcessRead(): Promise<void> {
  await readFile(join(worktree, "src/lib/mod.ts"));
}

const CASES: Record<string, () => Promise<void>> = {
  "in-process read (baseline)": inProcessRead,
  "helper read (none)": () => helperRead(none),
  ...(confined !== null ? { "helper read (bwrap)": () => helperRead(confined) } : {}),
  "in-process write (baseline)": async () =>
    void await writeFile(join(worktree, "src/lib/out.ts"), bytes),
  "helper write (none)": () => helperWrite(none),
  ...(confined !== null ? { "helper write (bwrap)": () => helperWrite(confined) } : {}),
};

// Start both helpers before timing (the start-up is once per run, not per request).
await helperRead(none);
if (confined !== null) await helperRead(confined);

/** The echo floor: a helper process that answers each line with a line of the same size. */
const ECHO_SOURCE = `
import process from "node:process";
let rest = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (c) => {
  const lines = (rest + c).split("\\n");
  rest = lines.pop();
  for (const l of lines) process.stdout.write(l + "\\n");
});
process.stdin.on("end", () => process.exit(0));
`;

interface Echo {
  roundTrip(line: string): Promise<void>;
  close(): Promise<void>;
}

function echoHelper(sandbox: SandboxProfile): Echo {
  const runtime = helperRuntime();
  const argv = runtime === null ? null : evalArgv(runtime, ECHO_SOURCE);
  if (argv === null) throw new Error("no runtime for the echo helper");
  let stdin!: Writable;
  let waiting: (() => void) | null = null;
  let done!: Promise<void>;
  const ready = new Promise<void>((r) => {
    const proc = runProcess({
      argv,
      cwd: worktree,
      sandbox,
      env: { DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
      maxCaptureBytes: 16 * 1024,
      openStdin: (s) => {
        stdin = s;
        r();
      },
      onStdout: (chunk) => {
        if (chunk.includes(10)) waiting?.();
      },
    });
    done = proc.then(() => undefined);
  });
  return {
    async roundTrip(line) {
      await ready;
      const answered = new Promise<void>((r) => (waiting = r));
      stdin.write(line + "\n");
      await answered;
    },
    async close() {
      await ready;
      stdin.end();
      await done;
    },
  };
}

/** `n` sequential requests: their elapsed ms (a `Timed` reporting its own time). */
function batch(n: number, one: () => Promise<void>): () => Promise<number> {
  return async () => {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await one();
    return performance.now() - t0;
  };
}

const PER_ROUND = 200;
const readLine = JSON.stringify({ id: 1, op: "read", path: "src/lib/mod.ts", max: 1 << 20 });

/** Budgets checked by `deno task bench:check` (docs/benchmarks.md). */
export const budgets: readonly BudgetSpec[] = [{
  id: "files.added_p50",
  measures: "what the in-sandbox helper adds to one fs/read_text_file of a 4 KiB file two " +
    "directories deep (p50 of the helper under bwrap minus p50 of the in-process read), ms",
  peer: "node:fs readFile of the same file in vouch's process (p50)",
  bound: "<= 2 ms",
  measure: async () => {
    if (confined === null) {
      return `bwrap unavailable: ${probe.bwrap.available ? "" : probe.bwrap.reason}`;
    }
    const r = await interleaved(() => helperRead(confined), inProcessRead, {
      warmup: 50,
      rounds: 1001,
    });
    const helper = median(r.subject);
    const peer = median(r.peer);
    return {
      subject: helper - peer,
      peer,
      unit: "ms",
      samples: 1001,
      note: `helper p50 ${helper.toFixed(3)} ms`,
    };
  },
}, {
  id: "files.rps",
  measures: "requests/s of the in-sandbox helper (bwrap), a read and a write of a 4 KiB " +
    `file alternating, ${PER_ROUND} sequential requests per round, median of the rounds`,
  peer: "round trips/s of a trivial echo helper (same runtime, same sandbox): the floor",
  bound: ">= 500 requests/s",
  measure: async () => {
    if (confined === null || bwrap === null) {
      return `bwrap unavailable: ${probe.bwrap.available ? "" : probe.bwrap.reason}`;
    }
    const echo = echoHelper({ ...bwrap, shareNetwork: false });
    await echo.roundTrip(readLine);
    let flip = false;
    const mixed = () => {
      flip = !flip;
      return flip ? helperRead(confined) : helperWrite(confined);
    };
    const r = await interleaved(
      batch(PER_ROUND, mixed),
      batch(PER_ROUND, () => echo.roundTrip(readLine)),
      { warmup: 1, rounds: 9 },
    );
    await echo.close();
    const rate = (ms: number[]) => PER_ROUND / median(ms) * 1000;
    return {
      subject: rate(r.subject),
      peer: rate(r.peer),
      unit: "requests/s",
      samples: 9,
      note: `rounds (req/s): ${r.subject.map((ms) => Math.round(PER_ROUND / ms * 1000)).join(" ")}`,
    };
  },
}];

if (import.meta.main) {
  const n = Number(Deno.args[0] ?? "2000");
  for (const [name, fn] of Object.entries(CASES)) {
    const ms: number[] = [];
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await fn();
      ms.push(performance.now() - t);
    }
    const total = performance.now() - t0;
    ms.sort((a, b) => a - b);
    const q = (p: number) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))]!.toFixed(3);
    console.log(
      `${name.padEnd(28)} p50 ${q(0.5)} ms  p90 ${q(0.9)} ms  ${
        Math.round(n / total * 1000)
      } req/s`,
    );
  }
  await none.close();
  await confined?.close();
  Deno.removeSync(worktree, { recursive: true });
} else {
  for (const [name, fn] of Object.entries(CASES)) {
    const group = name.includes("read") ? "read" : "write";
    Deno.bench({ group, name, baseline: name.includes("baseline"), fn: async () => await fn() });
  }
  globalThis.addEventListener("unload", () => Deno.removeSync(worktree, { recursive: true }));
}
