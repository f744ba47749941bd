/**
 * Run by run_test.ts in a process of its own (`--v8-flags=--expose-gc`): one
 * capture of 1 GiB of output with a 4 KiB bound, and the RSS growth it caused,
 * measured after a full GC on both sides so that garbage the test runner or
 * other tests left, or that the collector has not reclaimed yet, is not counted.
 * Prints the capture summary and the growth as one JSON line.
 *
 * @module
 */
import { runProcess } from "../../../adapters/process/mod.ts";

const collect = (globalThis as { gc?: () => void }).gc ?? (() => {});
const cmd = "yes 'vouch é output line' | head -c 1073741824";
// A small capture first: the one-time cost of the first child (pipes, runtime threads) is not
// the capture's.
await runProcess({ shell: "head -c 1048576 /dev/zero", cwd: "/", maxCaptureBytes: 4096 });
collect();
const rssBefore = Deno.memoryUsage().rss;
const r = await runProcess({ shell: cmd, cwd: "/", maxCaptureBytes: 4096, timeoutMs: 900_000 });
collect();
const rssGrowth = Deno.memoryUsage().rss - rssBefore;
console.log(JSON.stringify({ exitCode: r.exitCode, stdout: r.stdout, rssGrowth }));
