/**
 * `vouch gc`: removes worktrees left behind by crashed or killed runs.
 *
 * @module
 */
import { type CliCommand, EXIT, UsageError } from "../command.ts";
import { listedCommand } from "./_listed.ts";
import { JSON_FLAG, parseFlags } from "./_flags.ts";
import { gcWorktrees } from "../../adapters/worktree/gc.ts";
import { defaultWorktreeRoot, legacyWorktreeRoots } from "../../adapters/worktree/location.ts";
import { jsonDocument } from "../json_document.ts";
import { locateRepo } from "../../adapters/git/locate_repo.ts";
import { GitError } from "../../adapters/git/git_checked.ts";

/** The top level of the repository `dir` is in, as worktrees record it (a usage error otherwise). */
async function repositoryTop(dir: string): Promise<string> {
  try {
    return (await locateRepo(dir, "HEAD")).top;
  } catch (error) {
    if (error instanceof GitError) {
      throw new UsageError(`Cannot use --dir ${dir}: ${error.message}`);
    }
    throw error;
  }
}

const HELP = `vouch gc: remove worktrees left behind by crashed runs

Usage:
  vouch gc [--dir REPO] [--dry-run] [--root DIR] [--json]

Only vouch-owned worktrees whose creating process is gone are removed; live
runs are left alone. Emptied per-repository folders are removed too. Without
--root: the default root (\$VOUCH_WORKTREE_ROOT, else
<tmp>/vouch-<user>/worktrees) and the old default ~/.local/state/vouch/worktrees.

Options:
  --dir REPO   only the worktrees of this repository (other repositories' trees
               under the same root are neither listed nor removed)
  --dry-run    list what would be removed; remove nothing
  --root DIR   scan this worktree root only
  --json       machine-readable report

Examples:
  vouch gc --dir .
  vouch gc --dry-run --json
`;

/** `vouch gc`. */
export const gcCommand: CliCommand = {
  ...listedCommand("gc", HELP, { 0: "done" }),
  async run(argv, io) {
    const values = parseFlags(argv, {
      ...JSON_FLAG,
      "dry-run": { type: "boolean", default: false },
      root: { type: "string" },
      dir: { type: "string" },
    });
    const repo = values.dir === undefined ? undefined : await repositoryTop(values.dir);
    // Without --root: the default root and the roots earlier versions used by default.
    const roots = values.root !== undefined
      ? [values.root]
      : [...new Set([defaultWorktreeRoot(), ...legacyWorktreeRoots()])];
    const report = { removed: [] as string[], kept: [] as string[], skipped: [] as string[] };
    for (const root of roots) {
      const r = await gcWorktrees({
        dryRun: values["dry-run"],
        root,
        ...(repo !== undefined ? { repo } : {}),
      });
      report.removed.push(...r.removed);
      report.kept.push(...r.kept);
      report.skipped.push(...r.skipped);
    }
    if (values.json) {
      io.out(JSON.stringify(jsonDocument(report)) + "\n");
    } else {
      const verb = values["dry-run"] ? "would remove" : "removed";
      io.out(`${verb} ${report.removed.length}, kept ${report.kept.length} (owner running)\n`);
      for (const path of report.removed) io.out(`  ${verb}: ${path}\n`);
    }
    return EXIT.ok;
  },
};
