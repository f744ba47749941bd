/**
 * The flag shapes the commands share: strict options (with or without
 * positional arguments), `--json`, `--sandbox MODE`, `--concurrency N`
 * and the queue flags (`--queue redis[s]://[USER]:PASSWORD@HOST:PORT[/NAME]`,
 * `--insecure-queue`, `--queue-ca`, `--fleet-key`), each refused with one usage error.
 *
 * @module
 */
import { readFile } from "node:fs/promises";
import process from "node:process";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { KeyError } from "../../adapters/keys/errors.ts";
import { loadFleetKey } from "../../adapters/keys/fleet_key.ts";
import type { MacKey } from "../../adapters/keys/mac_key.ts";
import type { QueueAddress } from "../../adapters/batch/queue.ts";
import type { SandboxRequirement } from "../../adapters/host/sandbox_probe.ts";
import { UsageError } from "../command.ts";
import { loadQueue } from "./_queue_net.ts";

/** Options as `node:util` `parseArgs` takes them. */
type Options = NonNullable<ParseArgsConfig["options"]>;

/** What {@linkcode parseFlags} returns for `options`. */
export type FlagValues<O extends Options> = CommandLine<O>["values"];

/** What {@linkcode parseCommandLine} returns for `options`. */
export type CommandLine<O extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; strict: true; allowPositionals: true; options: O }>
>;

/**
 * Parses `argv` strictly against `options` (an unknown flag throws), keeping
 * the positional arguments for the command to judge.
 *
 * @example
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
 * import { parseCommandLine } from "./_flags.ts";
 * const { values, positionals } = parseCommandLine(["--json", "log"], { json: { type: "boolean" } });
 * equal(values.json, true);
 * deepEqual(positionals, ["log"]);
 * ```
 */
export function parseCommandLine<O extends Options>(
  argv: readonly string[],
  options: O,
): CommandLine<O> {
  return parseArgs({ args: [...argv], strict: true, allowPositionals: true, options });
}

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
  const { values, positionals } = parseCommandLine(argv, options);
  if (positionals.length > 0) {
    throw new UsageError(`Cannot use arguments: ${positionals.join(" ")}`);
  }
  return values;
}

/**
 * `--json`: print the machine-readable document instead of text (off by
 * default), the one definition every command with the flag spreads in.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { JSON_FLAG, parseFlags } from "./_flags.ts";
 * equal(parseFlags([], JSON_FLAG).json, false);
 * equal(parseFlags(["--json"], { ...JSON_FLAG }).json, true);
 * ```
 */
export const JSON_FLAG = { json: { type: "boolean", default: false } } as const;

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

/** The queue flags `vouch batch` and `vouch worker` share (see {@linkcode queueFlag}). */
export const QUEUE_FLAGS = {
  queue: { type: "string" },
  "insecure-queue": { type: "boolean", default: false },
  "queue-ca": { type: "string" },
  "fleet-key": { type: "string" },
} as const;

/** The help lines of {@linkcode QUEUE_FLAGS}. */
export const QUEUE_HELP =
  `  --queue URL        redis[s]://[USER]:PASSWORD@HOST:PORT[/NAME] (NAME default vouch-batch);
                     the password may come from VOUCH_QUEUE_PASSWORD instead (kept out of ps)
  --insecure-queue   accept a Redis without credentials (anyone who reaches it reads the patches)
  --queue-ca FILE    PEM CA certificate(s) to trust for rediss:// (default: the system's)
  --fleet-key FILE   the fleet key jobs, verdicts and reports are sealed with
                     (default fleet.hmac.json in the key store; copy it to every worker)`;

/**
 * `--queue URL` (with `--insecure-queue`, `--queue-ca FILE` and the password
 * from `VOUCH_QUEUE_PASSWORD`): the queue module (BullMQ, loaded only now) and
 * the parsed address. A URL without credentials is a usage error unless
 * `--insecure-queue` says so.
 *
 * @example
 * ```ts ignore
 * const { queue, address } = await queueFlag("redis://:pw@127.0.0.1:6379", { insecure: false });
 * ```
 */
export async function queueFlag(
  url: string,
  opts: { readonly insecure?: boolean | undefined; readonly ca?: string | undefined } = {},
): Promise<{
  readonly queue: Awaited<ReturnType<typeof loadQueue>>;
  readonly address: QueueAddress;
}> {
  const queue = await loadQueue();
  let address: QueueAddress;
  try {
    address = queue.parseQueueUrl(url, {
      password: process.env["VOUCH_QUEUE_PASSWORD"],
      insecure: opts.insecure === true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (opts.ca === undefined) return { queue, address };
  if (!address.tls) throw new UsageError("Cannot use --queue-ca: the queue URL is not rediss://");
  try {
    return { queue, address: { ...address, ca: await readFile(opts.ca, "utf8") } };
  } catch (error) {
    throw new UsageError(`Cannot read --queue-ca ${opts.ca}: ${(error as Error).message}`);
  }
}

/**
 * `--fleet-key FILE` (default: the key store's): the fleet key. Only a
 * coordinator (`create`) makes one when it is missing; a worker or a merge
 * without it stops with the `KeyError` `fleet_key_missing` naming the file
 * (one line, exit 5); any other key problem is a usage error.
 *
 * @example
 * ```ts ignore
 * const key = await fleetKeyFlag(values["fleet-key"], { create: false });
 * ```
 */
export async function fleetKeyFlag(
  file: string | undefined,
  opts: { readonly create: boolean },
): Promise<MacKey> {
  try {
    return await loadFleetKey({ file, create: opts.create });
  } catch (error) {
    // A missing key is no usage mistake: one line with its code (`fleet_key_missing`), exit 5.
    if (error instanceof KeyError && error.code !== "fleet_key_missing") {
      throw new UsageError(error.message);
    }
    throw error;
  }
}
