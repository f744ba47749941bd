/**
 * `vouch batch` throughput on a self-made cohort: 6 small repositories (3 Node
 * `node --test`, 3 Deno `deno test`) whose suites take about 0.5 s, 17
 * candidates each (good, no-op, partial, test-editing, scope-creep, empty,
 * broken): 102 candidates. In one run it measures
 *
 * - a bare sequential loop on the same input: `git worktree add` + `git apply`
 *   (test patch, then the candidate) + the test command, per candidate;
 * - the ideal: the sum of the bare loop's test times / cores;
 * - `vouch batch` at concurrency 1 and at the number of cores (sandbox auto);
 * - the fleet: 2 `vouch worker` processes on a real redis-server against
 *   local batch (skipped with a reason without redis-server);
 *
 * and prints candidates per minute, the ratio to the ideal (target: at least
 * 0.85 at concurrency = cores) and memory: the batch process's peak RSS at
 * half the candidates and at the end (bounded: it does not grow with the
 * number judged), per verification slot, and each fleet worker's peak.
 * Slow (minutes): not part of `deno task test`.
 *
 *   deno bench --no-prompt -A bench/batch_bench.ts
 *
 * For a quick check, or to compare dependency handling:
 * `VOUCH_BENCH_PER_TASK=3` (candidates per task, first kinds of the list),
 * `VOUCH_BENCH_NODE_MODULES=3000` (files in an installed node_modules of each
 * Node repository), `VOUCH_BENCH_DEPS=copy` (private copies instead of the
 * shared read-only snapshot).
 */
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { runBatch } from "../adapters/batch/mod.ts";
import { enqueueExecutor, parseQueueUrl } from "../adapters/batch/queue.ts";
import { loadFleetKey } from "../adapters/keys/fleet_key.ts";
import { type Kind, makeCohort } from "../tests/adapters/batch/_cohort.ts";
import { redisServerPath, startRedis } from "../tests/adapters/batch/_redis.ts";
import { VOUCH_TASK_FLAGS } from "../tests/golden/cli_harness.ts";

const CORES = availableParallelism();
const KINDS: Kind[] = [
  ...Array.from({ length: 5 }, () => "good" as const),
  ...Array.from({ length: 3 }, () => "noop" as const),
  ...Array.from({ length: 3 }, () => "partial" as const),
  "test_editing",
  "test_editing",
  "scope_creep",
  "scope_creep",
  "empty",
  "broken",
];
const PER_TASK = Number(Deno.env.get("VOUCH_BENCH_PER_TASK") ?? KINDS.length);
const NODE_MODULES = Number(Deno.env.get("VOUCH_BENCH_NODE_MODULES") ?? 0);
const DEPS = Deno.env.get("VOUCH_BENCH_DEPS") === "copy" ? "copy" : "shared";
const dir = await Deno.makeTempDir({ prefix: "vouch-batch-bench-" });
const cohort = await makeCohort(dir, {
  node: 3,
  deno: 3,
  kinds: KINDS.slice(0, PER_TASK),
  sleepMs: 300,
  nodeModulesFiles: NODE_MODULES,
});
const predictions: { instance_id: string; model_name_or_path: string; model_patch: string }[] = JSON
  .parse(
    await Deno.readTextFile(cohort.predictionsFile),
  );
const N = predictions.length;
const env = { XDG_STATE_HOME: join(dir, "state") };
const results: Record<string, { ms: number; rssMb?: number; extra?: string }> = {};
let bareTestMs = 0;
// Each candidate's bare test time (`instance_id@model`), and the candidates vouch ran tests for.
const bareMsById = new Map<string, number>();
let testedIds: Set<string> | null = null;
/** Reasons of candidates whose tests vouch ran (the rest it rejected before any test). */
const TESTED_REASONS = new Set([
  "verified",
  "failed_tests",
  "checks_failed",
  "artefact_dependence",
]);
let calls = 0;

async function sh(cwd: string, command: string, stdin?: string): Promise<boolean> {
  const child = new Deno.Command("sh", {
    args: ["-c", command],
    cwd,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "null",
    stderr: "null",
  }).spawn();
  if (stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(stdin));
    await w.close();
  }
  return (await child.status).success;
}

/**
 * Peak resident set of this process while `fn` runs, in MiB (sampled every 50
 * ms), overall and until `half()` was first called (half the candidates judged).
 */
async function withPeakRss<T>(
  fn: (half: () => void) => Promise<T>,
): Promise<{ value: T; rssMb: number; halfMb: number }> {
  let peak = Deno.memoryUsage().rss;
  let atHalf: number | null = null;
  const timer = setInterval(() => (peak = Math.max(peak, Deno.memoryUsage().rss)), 50);
  try {
    const value = await fn(() => (atHalf ??= Math.max(peak, Deno.memoryUsage().rss)));
    const mb = (b: number) => Math.round(b / 2 ** 20);
    return { value, rssMb: mb(peak), halfMb: mb(atHalf ?? peak) };
  } finally {
    clearInterval(timer);
  }
}

function perMinute(ms: number): string {
  return (N / (ms / 60_000)).toFixed(1);
}

// Deno may run each bench function more than once: print the last figures and clean up once, at exit.
globalThis.addEventListener("unload", () => {
  summary();
  Deno.removeSync(dir, { recursive: true });
});

function summary(): void {
  const ideal = bareTestMs / CORES;
  // vouch rejects scope creep, test edits and empty patches before any test runs; the bare loop
  // tests them all. The same ideal over only the candidates vouch ran tests for is the fair one.
  const tested = testedIds === null
    ? null
    : [...testedIds].reduce((sum, id) => sum + (bareMsById.get(id) ?? 0), 0) / CORES;
  console.log(
    `\nbatch bench: ${N} candidates, ${CORES} cores, dependencies ${DEPS}` +
      (NODE_MODULES > 0 ? ` (node_modules of ${NODE_MODULES} files per Node repo)` : ""),
  );
  console.log(
    `  ideal (bare test time ${(bareTestMs / 1000).toFixed(1)} s / ${CORES}): ${
      perMinute(ideal)
    }/min`,
  );
  if (tested !== null) {
    console.log(
      `  ideal over the ${testedIds!.size} candidates vouch ran tests for (${
        (tested * CORES / 1000).toFixed(1)
      } s / ${CORES}): ${(tested / 1000).toFixed(1)} s`,
    );
  }
  for (const [name, r] of Object.entries(results)) {
    console.log(
      `  ${name}: ${(r.ms / 1000).toFixed(1)} s, ${perMinute(r.ms)}/min, ${
        (ideal / r.ms).toFixed(2)
      } of ideal${
        tested !== null && name !== "bare loop"
          ? `, ${(tested / r.ms).toFixed(2)} of the ideal over the candidates it ran tests for`
          : ""
      }${r.rssMb !== undefined ? `, peak RSS ${r.rssMb} MiB` : ""}${r.extra ?? ""}`,
    );
  }
}

Deno.bench({
  group: "batch",
  name: "bare sequential loop: worktree add + git apply + test",
  baseline: true,
  n: 1,
  warmup: 0,
  async fn() {
    // Deno may call a bench function more than once: every call measures afresh.
    bareTestMs = 0;
    const t0 = performance.now();
    let i = 0;
    const round = ++calls;
    for (const p of predictions) {
      const task = cohort.tasks.find((t) => t.id === p.instance_id)!;
      const wt = join(dir, `bare-${round}`, String(i++));
      await sh(task.repo, `git worktree add -q --detach '${wt}' ${task.base}`);
      const applied = await sh(wt, "git apply --index", task.testPatch) &&
        (p.model_patch.trim() === "" || await sh(wt, "git apply --index", p.model_patch));
      if (applied) {
        const s = performance.now();
        await sh(wt, task.command);
        const ms = performance.now() - s;
        bareTestMs += ms;
        bareMsById.set(`${p.instance_id}@${p.model_name_or_path}`, ms);
      }
      await sh(task.repo, `git worktree remove --force '${wt}'`);
    }
    results["bare loop"] = { ms: performance.now() - t0 };
  },
});

for (const concurrency of [1, CORES]) {
  Deno.bench({
    group: "batch",
    name: `vouch batch, concurrency ${concurrency}`,
    n: 1,
    warmup: 0,
    async fn() {
      const t0 = performance.now();
      const { value, rssMb, halfMb } = await withPeakRss((half) =>
        runBatch({
          tasks: cohort.tasksFile,
          predictions: cohort.predictionsFile,
          // A fresh output directory per call: a second call must not resume the first.
          outDir: join(dir, `out-${concurrency}-${++calls}`),
          concurrency,
          keyEnv: env,
          worktreeRoot: join(dir, "worktrees"),
          dependencies: DEPS,
          onEvent: (e) => {
            if (e.kind === "judged" && e.done * 2 >= e.total) half();
          },
        })
      );
      const r = value.report;
      testedIds = new Set(
        // Keyed as the bare loop keys them (a report's id drops the model when an instance has one).
        r.candidates.filter((c) => TESTED_REASONS.has(c.reason))
          .map((c) => `${c.instance_id}@${c.model_name_or_path}`),
      );
      results[`vouch batch c=${concurrency}`] = {
        ms: performance.now() - t0,
        rssMb,
        extra: ` (half-way ${halfMb} MiB, ${Math.round(rssMb / concurrency)} MiB per slot; ` +
          `resolved ${r.resolved_instances}, unresolved ${r.unresolved_instances}, ` +
          `error ${r.error_instances}, empty ${r.empty_patch_instances})`,
      };
    },
  });
}

Deno.bench({
  group: "batch",
  name: "fleet: 2 vouch workers on redis-server",
  n: 1,
  warmup: 0,
  async fn() {
    const redis = redisServerPath();
    if (redis === null) {
      console.log("fleet bench skipped: redis-server is not installed");
      return;
    }
    const server = startRedis(redis);
    const port = server.port;
    await new Promise((r) => setTimeout(r, 300));
    const main = new URL("../cli/main.ts", import.meta.url).pathname;
    const config = new URL("../deno.json", import.meta.url).pathname;
    const flags = VOUCH_TASK_FLAGS.map((f) =>
      f === "--deny-net" ? `--allow-net=127.0.0.1:${port}` : f
    );
    const workers = [1, 2].map((n) =>
      new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          ...flags,
          "--config",
          config,
          main,
          "worker",
          "--queue",
          server.url,
          "--tasks",
          cohort.tasksFile,
          "--out",
          join(dir, `fleet-w${n}`),
        ],
        env: { ...env, VOUCH_WORKTREE_ROOT: join(dir, "worktrees") },
        stdout: "null",
        stderr: "null",
      }).spawn()
    );
    const peaks = workers.map(() => 0);
    const timer = setInterval(() => {
      workers.forEach((w, i) => {
        try {
          const status = Deno.readTextFileSync(`/proc/${w.pid}/status`);
          const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
          peaks[i] = Math.max(peaks[i]!, kb);
        } catch { /* not yet or gone */ }
      });
    }, 100);
    try {
      const t0 = performance.now();
      await runBatch({
        tasks: cohort.tasksFile,
        predictions: cohort.predictionsFile,
        outDir: join(dir, `out-fleet-${++calls}`),
        keyEnv: env,
        executor: enqueueExecutor(parseQueueUrl(server.url), {
          fleetKey: await loadFleetKey({ env, create: true }),
        }),
      });
      results["fleet, 2 workers x 1"] = {
        ms: performance.now() - t0,
        extra: `, peak RSS per worker ${
          peaks.map((k, i) => `w${i + 1} ${Math.round(k / 1024)} MiB`).join(", ")
        }`,
      };
    } finally {
      clearInterval(timer);
      for (const w of workers) {
        w.kill("SIGTERM");
        await w.status;
      }
      await server.stop();
    }
  },
});
