/**
 * `vouch worker`: judges a Redis queue's batch jobs with the same code as a
 * local `vouch batch`, until SIGINT or SIGTERM.
 *
 * @module
 */
import process from "node:process";
import { resolve } from "node:path";
import { type CliCommand, EXIT, UsageError } from "../command.ts";
import { jsonDocument } from "../json_document.ts";
import { candidateLine } from "../../adapters/batch/progress.ts";
import { withQueueNet } from "./_queue_net.ts";
import { concurrencyFlag, parseFlags, queueFlag, sandboxFlag } from "./_flags.ts";

const HELP = `vouch worker: judge the candidates a \`vouch batch --queue\` enqueued

Usage:
  vouch worker --queue redis://HOST:PORT[/NAME] [--concurrency N] [--out DIR] [--sandbox MODE]
               [--json]

Takes jobs from the BullMQ queue on Redis, judges each through the same
verification as \`vouch verify\` (artefacts under DIR/candidates/<key>/), and
returns the verdict to the queue. Run any number of workers on any machines
that see the tasks' repositories at the same paths. A worker that dies
mid-job loses its lock; the job goes to another worker and gets exactly one
verdict. Stops on SIGINT/SIGTERM. Network: the queue's address only.

Options:
  --queue URL        redis://HOST:PORT[/NAME] (NAME default vouch-batch)
  --concurrency N    checks at a time (default 1); twice as many jobs are taken, the
                     others prepare their trees meanwhile
  --out DIR          artefact directory (default .vouch/batch)
  --sandbox MODE     auto | bwrap | none (default auto)
  --lock-ms MS       job lock; a dead worker's job is retried after about this long (default 30000)
  --json             print each verdict as one JSON line on stdout ("schemaVersion": 1 first;
                     schemas/worker-output.schema.json); progress stays on stderr

Examples:
  vouch worker --queue redis://127.0.0.1:6379 --concurrency 2
`;

/** `vouch worker`. */
export const workerCommand: CliCommand = {
  name: "worker",
  summary: "judge the candidates `vouch batch --queue` enqueued on Redis",
  help: HELP,
  verdicts: [],
  exits: { 0: "stopped by SIGINT/SIGTERM" },
  async run(argv, io) {
    const values = parseFlags(argv, {
      queue: { type: "string" },
      concurrency: { type: "string", default: "1" },
      out: { type: "string", default: ".vouch/batch" },
      sandbox: { type: "string", default: "auto" },
      "lock-ms": { type: "string", default: "30000" },
      json: { type: "boolean", default: false },
    });
    if (values.queue === undefined) {
      throw new UsageError("Cannot work: --queue redis://HOST:PORT is required");
    }
    const concurrency = concurrencyFlag(values.concurrency, 1);
    const lockMs = Number(values["lock-ms"]);
    if (!Number.isInteger(lockMs) || lockMs < 1000) {
      throw new UsageError("Cannot use --lock-ms: at least 1000");
    }
    const sandbox = sandboxFlag(values.sandbox);
    const { queue, address } = await queueFlag(values.queue);
    const child = await withQueueNet(address, ["worker", ...argv]);
    if (child !== null) return child;
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    let n = 0;
    try {
      io.err(`vouch worker: pid ${process.pid} on ${values.queue}, concurrency ${concurrency}\n`);
      await queue.runQueueWorker(address, {
        outDir: resolve(values.out),
        concurrency,
        sandbox,
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
