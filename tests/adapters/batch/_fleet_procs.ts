/**
 * The `vouch` processes of the fleet tests: the CLI's own flags (`deno task
 * vouch`, with `--deny-net`, or with the one loopback address of a test's
 * Redis), a spawned process whose stderr lines are collected as they come,
 * and a wait for a condition with a bound.
 */
import { VOUCH_TASK_FLAGS } from "../../golden/cli_harness.ts";

const MAIN = new URL("../../../cli/main.ts", import.meta.url).pathname;
const CONFIG = new URL("../../../deno.json", import.meta.url).pathname;

/** `deno run` arguments of the vouch CLI; with `port`, the network of 127.0.0.1:port only. */
export function vouchArgs(port: number | null, ...args: string[]): string[] {
  const flags = port === null
    ? VOUCH_TASK_FLAGS
    : VOUCH_TASK_FLAGS.map((f) => (f === "--deny-net" ? `--allow-net=127.0.0.1:${port}` : f));
  return ["run", ...flags, "--config", CONFIG, MAIN, ...args];
}

/** A spawned process, its stderr lines so far, its whole stdout, and the stderr pump. */
export interface Collecting {
  readonly child: Deno.ChildProcess;
  readonly lines: string[];
  readonly stdout: Promise<string>;
  readonly pump: Promise<void>;
}

/** A spawned Deno process whose stderr lines are collected (`lines`) while it runs. */
export function spawnCollecting(args: string[], env: Record<string, string>): Collecting {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: string[] = [];
  const stdout = new Response(child.stdout).text();
  const pump = (async () => {
    let buf = "";
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      buf += chunk;
      const parts = buf.split("\n");
      buf = parts.pop()!;
      lines.push(...parts);
    }
    if (buf !== "") lines.push(buf);
  })();
  return { child, lines, stdout, pump };
}

/** Waits until `ok()` holds, polling every `everyMs`; throws after `ms`. */
export async function until(
  what: string,
  ok: () => boolean | Promise<boolean>,
  ms = 90_000,
  everyMs = 50,
): Promise<void> {
  const end = Date.now() + ms;
  while (!await ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
