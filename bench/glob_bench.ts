/**
 * Glob matching throughput: ~100k real paths (a walk of /usr) against 10
 * typical scope patterns, one pattern at a time, for vouch (TypeScript, WASM,
 * WASM batch over bytes), picomatch and minimatch (both with `dot: true`, as
 * git matches dotfiles). One iteration = every path x every pattern; tests/s =
 * paths x 10 / time. Also the 10 patterns as one ordered GlobSet.
 */
import picomatch from "picomatch";
import { minimatch } from "minimatch";
import { compileGlobs } from "../kernel/glob/mod.ts";
import { wasmGlobEngine } from "../wasm/glob_matcher.ts";
import { collectRealPaths } from "./_real_paths.ts";
import { type BudgetSpec, interleavedMs } from "./_budget.ts";

const PATHS = collectRealPaths(100_000);
const PATTERNS = [
  "**/*.js",
  "**/*.md",
  "share/doc/**",
  "**/node_modules/**",
  "lib/python3*/**/*.py",
  "**/test/**",
  "**/LICENSE*",
  "share/*/[a-m]*/**/*.h",
  "share/locale/*/LC_MESSAGES/*.mo",
  "**/.*",
];
const BATCH = new TextEncoder().encode(PATHS.join("\0"));
const vouchTs = PATTERNS.map((p) => compileGlobs([p]));
const vouchWasm = PATTERNS.map((p) => compileGlobs([p], { engine: wasmGlobEngine }));
const wasmRunners = vouchTs.map((s) => wasmGlobEngine.bind(s.program));
const pico = PATTERNS.map((p) => picomatch(p, { dot: true }));
const mini = PATTERNS.map((p) => new minimatch.Minimatch(p, { dot: true }));
const wholeSet = compileGlobs(PATTERNS);
const group = `glob: ${PATHS.length} real paths x ${PATTERNS.length} patterns`;
const options = { group, n: 5, warmup: 1 };

let sink = 0;

Deno.bench({ ...options, name: "picomatch", baseline: true }, () => {
  for (const m of pico) for (const p of PATHS) if (m(p)) sink++;
});

Deno.bench({ ...options, name: "minimatch" }, () => {
  for (const m of mini) for (const p of PATHS) if (m.match(p)) sink++;
});

Deno.bench({ ...options, name: "vouch TS" }, () => {
  for (const s of vouchTs) for (const p of PATHS) if (s.matches(p)) sink++;
});

Deno.bench({ ...options, name: "vouch WASM (strings)" }, () => {
  for (const s of vouchWasm) for (const p of PATHS) if (s.matches(p)) sink++;
});

Deno.bench({ ...options, name: "vouch WASM (batch over bytes)" }, () => {
  for (const r of wasmRunners) for (const x of r.matchBatch(BATCH)) if (x >= 0) sink++;
});

Deno.bench({
  group: `glob set: ${PATHS.length} real paths, 10 patterns as one ordered GlobSet`,
  name: "vouch TS GlobSet",
  n: 5,
  warmup: 1,
}, () => {
  for (const p of PATHS) if (wholeSet.matches(p)) sink++;
});

globalThis.addEventListener("unload", () => {
  if (sink < 0) console.log(sink);
});

// ------------------------------------------------------------------ budgets

/** vouch's TS matcher against a peer's loop over the same paths and patterns, at most 1x. */
function versus(id: string, peer: string, peerRun: () => void): BudgetSpec {
  return {
    id,
    measures: `vouch TS glob matcher, ${PATHS.length} real paths x ${PATTERNS.length} patterns, ms`,
    peer: `${peer} (dot: true), same paths and patterns`,
    bound: "<= 1x",
    measure: () =>
      interleavedMs(
        () => {
          for (const s of vouchTs) for (const p of PATHS) if (s.matches(p)) sink++;
        },
        peerRun,
        { warmup: 1, rounds: 5 },
      ),
  };
}

/** Budgets checked by `deno task bench:check` (docs/benchmarks.md). */
export const budgets: readonly BudgetSpec[] = [
  versus("glob.vs_picomatch", "picomatch", () => {
    for (const m of pico) for (const p of PATHS) if (m(p)) sink++;
  }),
  versus("glob.vs_minimatch", "minimatch", () => {
    for (const m of mini) for (const p of PATHS) if (m.match(p)) sink++;
  }),
];
