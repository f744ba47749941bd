/**
 * The table of CLI subcommands. Each command lives in its own file; add one
 * line here per command.
 *
 * @module
 */
import type { CliCommand } from "../command.ts";
import { evaluateCommand } from "./evaluate.ts";
import { demoCommand } from "./demo.ts";
import { runCommand } from "./run.ts";
import { verifyCommand } from "./verify.ts";
import { gcCommand } from "./gc.ts";
import { scopeCommand } from "./scope.ts";
import { doctorCommand } from "./doctor.ts";
import { inspectCommand } from "./inspect.ts";
import { attestCommand } from "./attest.ts";
import { batchCommand } from "./batch.ts";
import { workerCommand } from "./worker.ts";
import { initCommand } from "./init.ts";

/** All subcommands, in the order `vouch --help` lists them. */
export const COMMANDS: readonly CliCommand[] = [
  evaluateCommand,
  demoCommand,
  initCommand,
  runCommand,
  verifyCommand,
  gcCommand,
  scopeCommand,
  doctorCommand,
  inspectCommand,
  attestCommand,
  batchCommand,
  workerCommand,
];
