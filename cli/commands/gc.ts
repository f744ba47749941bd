/**
 * `vouch gc`: removes worktrees left behind by crashed or killed runs.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { type CliCommand, EXIT, UsageError } from "../command.ts";
import { gcWorktrees } from "../../adapters/worktree/gc.ts";

const HELP = `vouch gc: remove worktrees left behind by crashed runs

Usage:
  vouch gc [--dry-run] [--root DIR] [--json]

Only vouch-owned worktrees whose creating process is gone are removed; live
runs are left alone.

Examples:
  vouch gc
  vouch gc --json
`;

/** `vouch gc`. */
export const gcCommand: CliCommand = {
  name: "gc",
  summary: "remove worktrees left behind by crashed runs",
  help: HELP,
  exits: { 0: "done" },
  async run(argv, io) {
    const { values, positionals } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: {
        json: { type: "boolean", default: false },
        "dry-run": { type: "boolean", default: false },
        root: { type: "string" },
      },
    });
    if (positionals.length > 0) {
      throw new UsageError(`Cannot use arguments: ${positionals.join(" ")}`);
    }
    const report = await gcWorktrees({
      dryRun: values["dry-run"],
      ...(values.root !== undefined ? { root: values.root } : {}),
    });
    if (values.json) {
      io.out(JSON.stringify(report) + "\n");
    } else {
      const verb = values["dry-run"] ? "would remove" : "removed";
      io.out(`${verb} ${report.removed.length}, kept ${report.kept.length} (owner running)\n`);
      for (const path of report.removed) io.out(`  ${verb}: ${path}\n`);
    }
    return EXIT.ok;
  },
};
