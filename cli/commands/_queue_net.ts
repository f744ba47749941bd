/**
 * The queue path's network permission. `vouch` runs with `--deny-net`; a
 * command given `--queue redis://HOST:PORT` re-runs itself in a child Deno
 * with the same flags plus `--allow-net=HOST:PORT` (that one address, nothing
 * else), unless the process already holds exactly that permission.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import type { QueueAddress } from "../../adapters/batch/queue.ts";
import { UsageError } from "../command.ts";
import { BROAD_FLAGS } from "../permissions.ts";

const CHILD_MARK = "VOUCH_QUEUE_CHILD";

/**
 * The queue module (BullMQ), loaded only for `--queue`. Where the `bullmq`
 * package is missing (an npm install without it), says so as a usage error.
 */
export async function loadQueue(): Promise<typeof import("../../adapters/batch/queue.ts")> {
  try {
    return await import("../../adapters/batch/queue.ts");
  } catch (error) {
    throw new UsageError(
      "Cannot use --queue: the queue client, the optional npm package bullmq, cannot be loaded " +
        `(install it beside vouch: npm install bullmq): ${
          error instanceof Error ? error.message : String(error)
        }`,
    );
  }
}

/**
 * `null` when this process may reach the queue (go on), else the exit code of
 * the child that ran the command with the queue's network permission.
 */
export async function withQueueNet(
  address: Pick<QueueAddress, "host" | "port">,
  argv: readonly string[],
): Promise<number | null> {
  const host = address.host.includes(":")
    ? `[${address.host}]:${address.port}`
    : `${address.host}:${address.port}`;
  // Under Node there is no permission system to widen: go on in this process.
  if ((globalThis as { Deno?: unknown }).Deno === undefined) return null;
  if (Deno.permissions.querySync({ name: "net", host }).state === "granted") return null;
  if (Deno.env.get(CHILD_MARK) === "1" || !Deno.mainModule.startsWith("file:")) {
    throw new UsageError(
      `Cannot reach the queue at ${host}: this process has no network permission for it ` +
        `(run under \`deno run --allow-net=${host} ...\`; a compiled binary cannot widen its permissions)`,
    );
  }
  const config = fileURLToPath(new URL("../../deno.json", import.meta.url));
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      ...BROAD_FLAGS.filter((f) => f !== "--deny-net"),
      `--allow-net=${host}`,
      "--config",
      config,
      Deno.mainModule,
      ...argv,
    ],
    env: { [CHILD_MARK]: "1" },
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  const forward = (signal: Deno.Signal) => () => {
    try {
      child.kill(signal);
    } catch { /* already gone */ }
  };
  const onInt = forward("SIGINT");
  const onTerm = forward("SIGTERM");
  Deno.addSignalListener("SIGINT", onInt);
  Deno.addSignalListener("SIGTERM", onTerm);
  try {
    const status = await child.status;
    return status.signal !== null ? 128 + (status.signal === "SIGINT" ? 2 : 15) : status.code;
  } finally {
    Deno.removeSignalListener("SIGINT", onInt);
    Deno.removeSignalListener("SIGTERM", onTerm);
  }
}
