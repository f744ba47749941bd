/**
 * `vouch batch`: grade SWE-bench-format predictions against tasks with test
 * lists, in parallel, resumably, sharded, locally or through a Redis queue;
 * `vouch batch merge` combines shard reports.
 *
 * @module
 */
import { availableParallelism } from "node:os";
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { type CliCommand, type CliIo, EXIT, UsageError } from "../command.ts";
import { listedCommand } from "./_listed.ts";
import { VERDICTS } from "../../adapters/driver/verdicts.ts";
import { jsonDocument } from "../json_document.ts";
import {
  type BatchEvent,
  BatchInputError,
  type BatchReport,
  mergeReports,
  runBatch,
} from "../../adapters/batch/mod.ts";
import { batchReportSchema } from "../../adapters/batch/schema.ts";
import { candidateLine, progressBar } from "../../adapters/batch/progress.ts";
import { MergeError } from "../../adapters/batch/report.ts";
import { parseShard } from "../../adapters/batch/plan.ts";
import { writeReports } from "../../adapters/batch/run.ts";
import type { Executor } from "../../adapters/batch/local_executor.ts";
import type { SwebenchDefaults } from "../../adapters/batch/input.ts";
import { TEST_FORMATS } from "../../adapters/test_failures/parse.ts";
import { withQueueNet } from "./_queue_net.ts";
import { visibleLine } from "../../adapters/text/mod.ts";
import { parseSandboxReadOnly } from "./run_args.ts";
import { checkReportSeal, sealReport } from "../../adapters/batch/fleet_seal.ts";
import {
  concurrencyFlag,
  fleetKeyFlag,
  JSON_FLAG,
  parseCommandLine,
  parseFlags,
  QUEUE_FLAGS,
  queueFlag,
  sandboxFlag,
} from "./_flags.ts";

const HELP = `vouch batch: grade many candidate patches (SWE-bench predictions) in clean trees

Usage:
  vouch batch --tasks FILE --predictions FILE [--out DIR] [--concurrency N]
              [--shard I/N] [--queue redis[s]://[USER]:PASSWORD@HOST:PORT[/NAME]]
              [--fleet-key FILE] [--sandbox MODE] [--sandbox-ro PATH]...
              [--repos DIR] [--test-command CMD] [--test-format FMT]
              [--fail-on-unresolved] [--fresh] [--tests-editable] [--json]
  vouch batch merge --out DIR [--fleet-key FILE] REPORT.json...

Every candidate goes through the same verification as \`vouch verify\`, in its
own clean tree with its own log, receipts, VerifiedPatch and attestation under
DIR/candidates/<key>/. A rerun skips candidates already judged (keyed by task,
base and patch digest). Writes DIR/report.json (SWE-bench's run-report keys
plus vouch's reason per candidate, sealed with the fleet key), DIR/report.md
and DIR/junit.xml. Exit 5 when any candidate is in error (could not run: a
check that cannot start, a sandbox or infrastructure failure, an unknown task),
whatever the others; with --fail-on-unresolved, exit 1 when any is not
resolved. \`merge\` refuses a shard report whose seal does not verify.

Options:
  --tasks FILE         tasks, JSONL (schemas/batch-task.schema.json), or SWE-bench dataset
                       rows ({instance_id, repo, base_commit, test_patch, FAIL_TO_PASS,
                       PASS_TO_PASS, ...}; other fields ignored)
  --repos DIR          where SWE-bench rows' repositories are cloned: DIR/owner__name or DIR/name
  --test-command CMD   the test command of SWE-bench rows without their own "verify"
  --test-format FMT    its output format (pytest, mocha, tap, ...; needed for the test lists)
  --predictions FILE   SWE-bench predictions: JSON array or JSONL of
                       {instance_id, model_name_or_path, model_patch}
  --out DIR            output directory (default .vouch/batch)
  --concurrency N      checks at a time (default: the number of cores); as many more
                       candidates prepare their trees (reset, git apply, scope) meanwhile
  --shard I/N          judge only the I-th of N deterministic slices (CI matrices)
  --queue URL          enqueue the candidates as BullMQ jobs on Redis (signed with the
                       fleet key) and wait for \`vouch worker\`s to judge them (network:
                       that address only); redis[s]://[USER]:PASSWORD@HOST:PORT[/NAME],
                       the password may come from VOUCH_QUEUE_PASSWORD
  --insecure-queue     accept a Redis without credentials
  --queue-ca FILE      PEM CA certificate(s) to trust for rediss://
  --fleet-key FILE     the key jobs, verdicts and reports are sealed with (default
                       fleet.hmac.json in the key store, created when missing)
  --sandbox MODE       auto | bwrap | none (default auto)
  --sandbox-ro PATH    a path outside the trees the checks need (a venv, a shared
                       node_modules), read-only in their sandbox; repeatable
  --fail-on-unresolved exit 1 when any candidate is not resolved (unresolved or empty patch)
  --fresh              judge again what DIR already holds
  --tests-editable     candidates may redefine the tests: one that changes test files is graded
                       against its own tests only, NOT also against the base's (each record
                       says so); not with --queue (put "testsEditable" in the contracts)
  --json               print the report on stdout, with "schemaVersion": 1 first
                       (schemas/batch-output.schema.json; merge: the same)

Examples:
  vouch batch --tasks tasks.jsonl --predictions preds.json --out eval
  vouch batch --tasks tasks.jsonl --predictions preds.jsonl --out eval-2 --shard 2/4
  vouch batch merge --out eval eval-1/report.json eval-2/report.json eval-3/report.json eval-4/report.json
  VOUCH_QUEUE_PASSWORD=... vouch batch --tasks tasks.jsonl --predictions preds.json --queue redis://127.0.0.1:6379
`;

async function merge(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, {
    out: { type: "string" },
    "fleet-key": { type: "string" },
    ...JSON_FLAG,
  });
  if (values.out === undefined) throw new UsageError("Cannot merge: --out DIR is required");
  if (positionals.length === 0) throw new UsageError("Cannot merge: give the shard reports");
  const fleetKey = await fleetKeyFlag(values["fleet-key"], { create: false });
  const reports = [];
  for (const path of positionals) {
    let value: unknown;
    try {
      value = JSON.parse(await readFile(path, "utf8"));
    } catch (error) {
      throw new UsageError(`Cannot read report ${path}: ${(error as Error).message}`);
    }
    const parsed = batchReportSchema.safeParse(value);
    if (!parsed.success) throw new UsageError(`Cannot use ${path}: not a vouch batch report`);
    const bad = await checkReportSeal(parsed.data, fleetKey);
    if (bad !== null) {
      io.err(`vouch batch merge: refused shard report ${path}: ${bad}\n`);
      return EXIT.rejected;
    }
    reports.push(parsed.data);
  }
  let merged;
  try {
    merged = mergeReports(reports);
  } catch (error) {
    if (error instanceof MergeError) throw new UsageError(error.message);
    throw error;
  }
  const files = await writeReports(values.out, await sealReport(merged, fleetKey));
  if (values.json) io.out(JSON.stringify(jsonDocument(merged)) + "\n");
  else {io.out(
      `merged ${reports.length} shards: ${
        summary(merged)
      }\nreports: ${files.json}, ${files.markdown}, ${files.junit}\n`,
    );}
  return EXIT.ok;
}

function summary(
  r: {
    resolved_instances: number;
    unresolved_instances: number;
    error_instances: number;
    empty_patch_instances: number;
    submitted_instances: number;
  },
): string {
  return `resolved ${r.resolved_instances}/${r.submitted_instances}, unresolved ${r.unresolved_instances}, ` +
    `error ${r.error_instances}, empty patch ${r.empty_patch_instances}`;
}

/** Renders progress: a bar redrawn on a terminal, one line per candidate otherwise. */
function progress(io: CliIo, quiet: boolean): (e: BatchEvent) => void {
  const started = Date.now();
  let judged = 0;
  return (e) => {
    if (quiet) return;
    if (e.kind === "planned") {
      io.err(`vouch batch: ${e.total} candidates, ${e.cached} already judged\n`);
      return;
    }
    judged += e.records.length;
    if (io.isTerminal) {
      const bar = progressBar({ ...e, elapsedMs: Date.now() - started, judged });
      io.err(`\r\x1b[2K${bar}${e.done === e.total ? "\n" : ""}`);
    } else {
      e.records.forEach((r, i) =>
        io.err(candidateLine(r, e.done - e.records.length + i + 1, e.total) + "\n")
      );
    }
  };
}

/** The SWE-bench row flags (`--repos`, `--test-command`, `--test-format`), as readTasks takes them. */
export function swebenchFlags(
  values: { repos?: string; "test-command"?: string; "test-format"?: string },
): SwebenchDefaults {
  const format = values["test-format"];
  if (format !== undefined && !(TEST_FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(
      `Cannot use --test-format "${format}": expected one of ${TEST_FORMATS.join(", ")}`,
    );
  }
  return {
    ...(values.repos !== undefined ? { repos: values.repos } : {}),
    ...(values["test-command"] !== undefined ? { testCommand: values["test-command"] } : {}),
    ...(format !== undefined ? { testFormat: format } : {}),
  };
}

/**
 * Why candidates could not be judged, on screen (not only in report.json):
 * each distinct detail once, with the fix for a sandbox that hides a path.
 */
function explainErrors(report: BatchReport, io: CliIo): void {
  const byDetail = new Map<string, number>();
  for (const c of report.candidates) {
    if (c.reason !== "could_not_run" && c.reason !== "contract_invalid") continue;
    const k = `${c.reason}: ${c.detail}`;
    byDetail.set(k, (byDetail.get(k) ?? 0) + 1);
  }
  if (byDetail.size === 0) return;
  const shown = [...byDetail].slice(0, 5);
  for (const [detail, n] of shown) {
    io.err(`vouch batch: ${n} candidate(s) ${visibleLine(detail)}\n`);
  }
  if (byDetail.size > shown.length) {
    io.err(`vouch batch: ... and ${byDetail.size - shown.length} more (report.json)\n`);
  }
  if (report.candidates.some((c) => c.reason === "could_not_run")) {
    io.err(
      "vouch batch: hint: the checks run in a sandbox that sees only the clean tree and the " +
        "system; a tool or dependency outside the repository (a venv, node_modules elsewhere, " +
        "/opt/...) is hidden: pass --sandbox-ro PATH for it (and --fresh to judge those again)\n",
    );
  }
}

/**
 * The batch's exit, from the one verdict table: COULD NOT RUN's code (5) when a candidate could
 * not be judged, REJECTED's (1) when asked to fail on candidates that are not verified.
 */
function exitOf(report: BatchReport, failOnUnresolved: boolean, io: CliIo): number {
  if (report.error_instances > 0) {
    const row = VERDICTS.could_not_run;
    io.err(
      `vouch batch: ${report.error_instances} of ${report.submitted_instances} candidate(s) in error ` +
        `(${row.word}: could not be judged; see report.json's failure_reasons); exit ${row.exitCode}\n`,
    );
    return row.exitCode;
  }
  const notResolved = report.unresolved_instances + report.empty_patch_instances;
  if (failOnUnresolved && notResolved > 0) {
    const row = VERDICTS.rejected;
    io.err(
      `vouch batch: ${notResolved} candidate(s) not resolved (${row.word}; --fail-on-unresolved); ` +
        `exit ${row.exitCode}\n`,
    );
    return row.exitCode;
  }
  return VERDICTS.verified.exitCode;
}

/** `vouch batch`. */
export const batchCommand: CliCommand = {
  ...listedCommand("batch", HELP, {
    0: "every candidate judged, none in error (one in error: 5)",
    1: "with --fail-on-unresolved a candidate is not resolved; a queue verdict or a shard report (merge) did not verify",
  }),
  async run(argv, io) {
    if (argv[0] === "merge") return await merge(argv.slice(1), io);
    const values = parseFlags(argv, {
      ...QUEUE_FLAGS,
      tasks: { type: "string" },
      predictions: { type: "string" },
      out: { type: "string", default: ".vouch/batch" },
      concurrency: { type: "string" },
      shard: { type: "string" },
      sandbox: { type: "string", default: "auto" },
      "sandbox-ro": { type: "string", multiple: true },
      repos: { type: "string" },
      "test-command": { type: "string" },
      "test-format": { type: "string" },
      "fail-on-unresolved": { type: "boolean", default: false },
      fresh: { type: "boolean", default: false },
      "tests-editable": { type: "boolean", default: false },
      ...JSON_FLAG,
    });
    if (values["tests-editable"] && values.queue !== undefined) {
      throw new UsageError(
        "Cannot use --tests-editable with --queue: the workers judge by the task files only " +
          '(put "testsEditable": true in the tasks\' contracts instead)',
      );
    }
    if (values.tasks === undefined || values.predictions === undefined) {
      throw new UsageError("Cannot run a batch: --tasks FILE and --predictions FILE are required");
    }
    const sandbox = sandboxFlag(values.sandbox);
    const sandboxReadOnly = parseSandboxReadOnly(values["sandbox-ro"] ?? []);
    const swebench = swebenchFlags(values);
    const concurrency = concurrencyFlag(values.concurrency, availableParallelism());
    const shard = values.shard === undefined ? null : parseShard(values.shard);
    if (values.shard !== undefined && shard === null) {
      throw new UsageError(`Cannot use --shard "${values.shard}": expected I/N with 1 <= I <= N`);
    }
    let executor: Executor | undefined;
    let refused = 0;
    if (values.queue !== undefined) {
      const { queue, address } = await queueFlag(values.queue, {
        insecure: values["insecure-queue"],
        ca: values["queue-ca"],
      });
      const child = await withQueueNet(address, ["batch", ...argv]);
      if (child !== null) return child;
      executor = queue.enqueueExecutor(address, {
        fleetKey: await fleetKeyFlag(values["fleet-key"], { create: true }),
        outDir: resolve(values.out),
        onRefused: (item, reason) => {
          refused++;
          io.err(`vouch batch: refused the verdict of ${item.key}: ${reason}; it stays unjudged\n`);
        },
      });
    }
    const fleetKey = await fleetKeyFlag(values["fleet-key"], { create: true });
    try {
      const { report, files } = await runBatch({
        tasks: values.tasks,
        predictions: values.predictions,
        outDir: values.out,
        concurrency,
        shard,
        sandbox,
        fresh: values.fresh,
        sandboxReadOnly,
        swebench,
        ...(values["tests-editable"] ? { testsEditable: true } : {}),
        onEvent: progress(io, values.json),
        fleetKey,
        ...(executor !== undefined ? { executor } : {}),
      });
      if (values.json) io.out(JSON.stringify(jsonDocument(report)) + "\n");
      else {io.out(
          `${summary(report)}\nreports: ${files.json}, ${files.markdown}, ${files.junit}\n`,
        );}
      if (refused > 0) {
        io.err(
          `vouch batch: ${refused} verdict(s) from the queue refused (see above); not counted\n`,
        );
        return EXIT.rejected;
      }
      if (!values.json) explainErrors(report, io);
      return exitOf(report, values["fail-on-unresolved"], io);
    } catch (error) {
      if (error instanceof BatchInputError) throw new UsageError(error.message);
      if (error instanceof Error && error.name === "QueueError") {
        io.err(`vouch batch: ${error.message}\n`);
        return EXIT.couldNotRun;
      }
      throw error;
    }
  },
};
