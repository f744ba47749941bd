/**
 * The polling loop shared by the watchdogs that read a child's tree through
 * a helper program (`sh` over `/proc`, `find` over a worktree): run the
 * program after `firstMs` (default 1000 ms), hand its output to `check`,
 * and either report what `check` found once or run again after
 * `max(1000, 10 x the last run's duration)` ms. Never two runs at once;
 * `stop` kills a running one and resolves when none runs any more.
 *
 * @module
 */
import { execFile } from "node:child_process";

/** A running {@linkcode pollingScan}. */
export interface PollingScan {
  /** Stops scanning; resolves when no scan is running any more. */
  stop(): Promise<void>;
}

/**
 * Runs `file args` again and again (see the module doc) until `check` of its
 * output returns a finding (not null), then calls `onFound` once with it.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { pollingScan } from "./_polling_scan.ts";
 * const found = await new Promise((resolve) => {
 *   const scan = pollingScan("/bin/sh", ["-c", "echo 7"], (out) => out.trim() || null, (v) => {
 *     void scan.stop().then(() => resolve(v));
 *   }, { firstMs: 0 });
 * });
 * equal(found, "7");
 * ```
 */
export function pollingScan<T>(
  file: string,
  args: readonly string[],
  check: (stdout: string) => T | null,
  onFound: (found: T) => void,
  options: { readonly firstMs?: number } = {},
): PollingScan {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | null = null;
  let kill: (() => void) | null = null;
  const scan = () => {
    timer = undefined;
    if (stopped) return;
    const started = performance.now();
    running = new Promise<void>((resolve) => {
      const child = execFile(
        file,
        [...args],
        { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, env: { PATH: "/usr/bin:/bin" } },
        (_error, stdout) => {
          kill = null;
          running = null;
          const found = stopped ? null : check(String(stdout ?? ""));
          if (!stopped && found !== null) {
            stopped = true;
            onFound(found);
          } else if (!stopped) {
            timer = setTimeout(scan, Math.max(1000, 10 * (performance.now() - started)));
          }
          resolve();
        },
      );
      kill = () => child.kill("SIGKILL");
    });
  };
  timer = setTimeout(scan, options.firstMs ?? 1000);
  return {
    stop: async () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      kill?.();
      await running;
    },
  };
}
