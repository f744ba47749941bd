/**
 * The file helper (adapters/backends/_file_service.ts): what serving an
 * agent's `fs/*` request through the long-lived in-sandbox helper costs
 * against vouch reading the file in its own process (what it did before the
 * helper, and must not do now). Targets (issue 20): ≤ 2 ms added per request
 * at p50 and ≥ 500 requests/s. `deno bench` reports each case against the
 * in-process baseline; `deno run -A bench/file_service_bench.ts [N]` prints
 * p50/p90 and requests/s over N sequential requests per case (default 2000).
 * The bench functions must be `async` functions: Deno times a plain function
 * returning a promise as synchronous.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileService } from "../adapters/backends/_file_service.ts";
import { probeSandbox } from "../adapters/host/sandbox_probe.ts";
import { bwrapProfile } from "../adapters/sandbox/bwrap.ts";

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

const CASES: Record<string, () => Promise<void>> = {
  "in-process read (baseline)": async () => void await readFile(join(worktree, "src/lib/mod.ts")),
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
}
