/**
 * The flag shapes `vouch gc`, `vouch batch` and `vouch worker` share: strict
 * options with no positional arguments, `--sandbox MODE`, `--concurrency N`
 * and `--queue redis://HOST:PORT[/NAME]`, each refused with one usage error.
 *
 * @module
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import type { QueueAddress } from "../../adapters/batch/queue.ts";
import type { SandboxRequirement } from "../../adapters/host/sandbox_probe.ts";
import { UsageError } from "../command.ts";
import { loadQueue } from "./_queue_net.ts";

/** Options as `node:util` `parseArgs` takes them. */
type Options = NonNullable<ParseArgsConfig["options"]>;

/** What {@linkcode parseFlags} returns for `options`. */
export type FlagValues<O extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; strict: true; allowPositionals: true; options: O }>
>["values"];

/**
 * Parses `argv` strictly against `options`; any positional argument is a usage error.
 *
 * @example
 * ```ts
 * import { equal, throws } from "node:assert/strict";
 * import { parseFlags } from "./_flags.ts";
 * equal(parseFlags(["--json"], { json: { type: "boolean" } }).json, true);
 * throws(() => parseFlags(["extra"], {}), /Cannot use arguments: extra/);
 * ```
 */
export function parseFlags<O extends Options>(
  argv: readonly string[],
  options: O,
): FlagValues<O> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: true,
    options,
  });
  if (positionals.length > 0) {
    throw new UsageError(`Cannot use arguments: ${positionals.join(" ")}`);
  }
  return values;
}

/**
 * `--sandbox`: `auto`, `bwrap` or `none`.
 *
 * @example
 * ```ts
 * import { equal, throws } from "node:assert/strict";
 * import { sandboxFlag } from "./_flags.ts";
 * equal(sandboxFlag(undefined), "auto");
 * throws(() => sandboxFlag("docker"), /expected auto, bwrap or none/);
 * ```
 */
export function sandboxFlag(value: string | undefined): SandboxRequirement {
  const sandbox = value ?? "auto";
  if (sandbox !== "auto" && sandbox !== "bwrap" && sandbox !== "none") {
    throw new UsageError(`Cannot use --sandbox "${sandbox}": expected auto, bwrap or none`);
  }
  return sandbox;
}

/**
 * `--concurrency`: a whole number from 1 to 1024 (`fallback` when not given).
 *
 * @example
 * ```ts
 * import { equal, throws } from "node:assert/strict";
 * import { concurrencyFlag } from "./_flags.ts";
 * equal(concurrencyFlag(undefined, 4), 4);
 * throws(() => concurrencyFlag("0", 4), /whole number/);
 * ```
 */
export function concurrencyFlag(value: string | undefined, fallback: number): number {
  const n = value === undefined ? fallback : Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1024) {
    throw new UsageError("Cannot use --concurrency: expected a whole number from 1 to 1024");
  }
  return n;
}

/**
 * `--queue URL`: the queue module (BullMQ, loaded only now) and the parsed address.
 *
 * @example
 * ```ts ignore
 * const { queue, address } = await queueFlag("redis://127.0.0.1:6379");
 * ```
 */
export async function queueFlag(url: string): Promise<{
  readonly queue: Awaited<ReturnType<typeof loadQueue>>;
  readonly address: QueueAddress;
}> {
  const queue = await loadQueue();
  try {
    return { queue, address: queue.parseQueueUrl(url) };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
