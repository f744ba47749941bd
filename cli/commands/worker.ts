/**
 * `vouch worker`: judges a Redis queue's batch jobs with the same code as a
 * local `vouch batch`, until SIGINT or SIGTERM.
 *
 * @module
 */
import process from "node:process";
import { resolve } from "node:path";
import { type CliCommand, EXIT, UsageError } from "../command.ts";
import { listedCommand } from "./_listed.ts";
import { jsonDocument } from "../json_document.ts";
import { candidateLine } from "../../adapters/batch/progress.ts";
import { withQueueNet } from "./_queue_net.ts";
import { swebenchFlags } from "./batch.ts";
import { parseSandboxReadOnly } from "./run_args.ts";
import { visibleLine as visible } from "../../adapters/text/mod.ts";
import { BatchInputError, readTasks } from "../../adapters/batch/input.ts";
import {
  concurrencyFlag,
  fleetKeyFlag,
  JSON_FLAG,
  parseFlags,
  QUEUE_FLAGS,
  QUEUE_HELP,
  queueFlag,
  sandboxFlag,
} from "./_flags.ts";

const HELP = `vouch worker: judge the candidates a \`vouch batch --queue\` enqueued

Usage:
  vouch worker --queue redis[s]://[USER]:PASSWORD@HOST:PORT[/NAME] --tasks FILE
               [--fleet-key FILE] [--concurrency N] [--out DIR] [--sandbox MODE]
               [--sandbox-ro PATH]... [--repos DIR] [--test-command CMD] [--test-format FMT] [--json]

Takes jobs from the BullMQ queue on Redis, judges each through the same
verification as \`vouch verify\` (artefacts under DIR/candidates/<key>/), and
returns the verdict, sealed with the fleet key, to the queue. A job is judged
only when the coordinator signed it with the fleet key and it names a task of
this worker's own --tasks file (by digest): anything else is refused and
nothing of it runs. Run any number of workers on any machines that see the
tasks' repositories at the same paths. A worker that dies mid-job loses its
lock; the job goes to another worker and gets exactly one verdict. Stops on
SIGINT/SIGTERM. Network: the queue's address only.

Options:
  --tasks FILE       the tasks file (the same as the coordinator's); jobs name its tasks
${QUEUE_HELP}
  --concurrency N    checks at a time (default 1); twice as many jobs are taken, the
                     others prepare their trees meanwhile
  --out DIR          artefact directory (default .vouch/batch)
  --sandbox MODE     auto | bwrap | none (default auto)
  --sandbox-ro PATH  a path outside the trees the checks need, read-only in their sandbox
  --repos DIR, --test-command CMD, --test-format FMT
                     SWE-bench dataset rows in --tasks, as \`vouch batch\` reads them
  --lock-ms MS       job lock; a dead worker's job is retried after about this long (default 30000)
  --json             print each verdict as one JSON line on stdout ("schemaVersion": 1 first;
                     schemas/worker-output.schema.json); progress stays on stderr

Examples:
  VOUCH_QUEUE_PASSWORD=... vouch worker --queue redis://127.0.0.1:6379 --tasks tasks.jsonl --concurrency 2
`;

/** `vouch worker`. */
export const workerCommand: CliCommand = {
  ...listedCommand("worker", HELP, { 0: "stopped by SIGINT/SIGTERM" }),
  async run(argv, io) {
    const values = parseFlags(argv, {
      ...QUEUE_FLAGS,
      tasks: { type: "string" },
      concurrency: { type: "string", default: "1" },
      out: { type: "string", default: ".vouch/batch" },
      sandbox: { type: "string", default: "auto" },
      "lock-ms": { type: "string", default: "30000" },
      "sandbox-ro": { type: "string", multiple: true },
      repos: { type: "string" },
      "test-command": { type: "string" },
      "test-format": { type: "string" },
      ...JSON_FLAG,
    });
    if (values.queue === undefined) {
      throw new UsageError("Cannot work: --queue redis://[USER]:PASSWORD@HOST:PORT is required");
    }
    if (values.tasks === undefined) {
      throw new UsageError("Cannot work: --tasks FILE is required (the batch's tasks file)");
    }
    const concurrency = concurrencyFlag(values.concurrency, 1);
    const lockMs = Number(values["lock-ms"]);
    if (!Number.isInteger(lockMs) || lockMs < 1000) {
      throw new UsageError("Cannot use --lock-ms: at least 1000");
    }
    const sandbox = sandboxFlag(values.sandbox);
    const { queue, address } = await queueFlag(values.queue, {
      insecure: values["insecure-queue"],
      ca: values["queue-ca"],
    });
    const child = await withQueueNet(address, ["worker", ...argv]);
    if (child !== null) return child;
    // Never created here: a worker with a key of its own would refuse every job the coordinator
    // signed. Missing, it stops at once (`fleet_key_missing`, exit 5); one machine's fleet shares
    // one key store (the coordinator creates it), other machines get a copy (--fleet-key).
    const fleetKey = await fleetKeyFlag(values["fleet-key"], { create: false });
    let tasks;
    try {
      tasks = (await readTasks(values.tasks, swebenchFlags(values))).tasks;
    } catch (error) {
      if (error instanceof BatchInputError) throw new UsageError(error.message);
      throw error;
    }
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    let n = 0;
    try {
      io.err(
        `vouch worker: pid ${process.pid} on ${
          address.tls ? "rediss" : "redis"
        }://${address.host}:${address.port}/${address.name}, concurrency ${concurrency}\n`,
      );
      await queue.runQueueWorker(address, {
        tasks,
        fleetKey,
        onRefused: (e) => io.err(`refused job ${visible(e.id)}: ${e.reason}\n`),
        outDir: resolve(values.out),
        concurrency,
        sandbox,
        sandboxReadOnly: parseSandboxReadOnly(values["sandbox-ro"] ?? []),
        lockMs,
        signal: stop.signal,
        onJob: (e) => {
          if (e.kind === "start") io.err(`start ${e.key}\n`);
          else if (e.verdict) {
            io.err(candidateLine({ id: e.key, ...e.verdict }, ++n, n) + "\n");
            if (values.json) io.out(JSON.stringify(jsonDocument(e.verdict)) + "\n");
          }
        },
      });
      return EXIT.ok;
    } catch (error) {
      if (error instanceof queue.QueueError) {
        io.err(`vouch worker: ${error.message}\n`);
        return EXIT.couldNotRun;
      }
      throw error;
    } finally {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    }
  },
};
