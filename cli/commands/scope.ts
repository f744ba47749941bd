/**
 * `vouch scope`: judge a patch before anything runs, exactly as `verify` and
 * `run` do (`judgePatch`, with the same default forbidden paths and policy):
 * strict parse, every path against confinement and the allowed / forbidden /
 * write globs, sensitive classes the policy denies, an empty patch.
 *
 * @module
 */
import { DEFAULT_FORBID } from "../../adapters/driver/run_in_repo.ts";
import { JSON_FLAG, parseCommandLine } from "./_flags.ts";
import { GlobError } from "../../kernel/glob/error.ts";
import { compileGlobs } from "../../kernel/glob/glob_set.ts";
import { judgePatch, type PatchJudgement } from "../../kernel/scope/judge_patch.ts";
import { type CliCommand, EXIT, UsageError } from "../command.ts";
import { listedCommand } from "./_listed.ts";
import { jsonDocument } from "../json_document.ts";
import { readInput } from "../input.ts";
import { permissionDenied } from "../../adapters/process/permission.ts";
import { type ScopeLists, violationRule } from "../../adapters/verification/check_detail.ts";

const HELP = `vouch scope: check which paths a patch touches, and whether it may

Usage:
  vouch scope --patch FILE [--allow GLOB]... [--forbid GLOB]... [--write GLOB]...
              [--reject-symlinks] [--json]

Judges the patch exactly as \`vouch verify\` and \`vouch run\` do before
anything runs, with the same defaults. Parses it (git diff, format-patch mail
or plain unified diff) strictly, never applies it, and checks every old and
new path: confinement (no '..', absolute, '.git' in any spelling, Windows
device names, backslashes, ...), forbidden globs (${DEFAULT_FORBID.join(", ")}
by default, unless --allow names one; matched on the case-folded NFC form too;
they win over allowed), allowed globs, the write set, name collisions after
case-folding, writes beneath a symlink the patch creates or renames, symlinked
.gitmodules and gitlinks. The default policy denies secrets-looking files and
symlinks (policy_denied:CLASS); a patch that changes nothing is empty_patch.
Every violation is listed, not just the first.

Globs follow .gitignore: '*' stays within a directory, '**' spans them, a
pattern without '/' matches a name at any depth, a trailing '/' means a
directory (and everything below it), a leading '!' excludes (last match wins).

Options:
  --patch FILE         the patch to check ('-' reads standard input)
  --allow GLOB         a path every touched path must match (repeatable; none = no limit)
  --forbid GLOB        a path no touched path may match (repeatable; added to the defaults)
  --write GLOB         a path every written path must match (repeatable; none = no limit)
  --reject-symlinks    report any symbolic link the patch touches
  --json               print { verdict, reasons, files, violations, sensitive, policyDenied }

Examples:
  git diff --binary | vouch scope --patch - --allow 'src/**' --forbid '.github/'
  vouch scope --patch change.diff --allow 'src/' --write 'src/' --json
`;

async function readPatch(file: string): Promise<Uint8Array> {
  try {
    return await readInput(file);
  } catch (error) {
    const denied = permissionDenied(error);
    if (denied !== null) throw denied;
    const why = error instanceof Error ? error.message : String(error);
    throw new UsageError(`Cannot read patch ${JSON.stringify(file)}: ${why}`);
  }
}

/** Shows a worker-controlled string safely (escaped, quoted). */
function shown(text: string | null): string {
  return text === null ? "/dev/null" : JSON.stringify(text);
}

/**
 * Renders a patch judgement for people.
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { judgePatch } from "../../kernel/scope/judge_patch.ts";
 * import { renderScopeReport } from "./scope.ts";
 * const patch = "--- a/.git/config\n+++ b/.git/config\n@@ -1 +1 @@\n-a\n+b\n";
 * const text = renderScopeReport(judgePatch(new TextEncoder().encode(patch), {}));
 * ok(text.startsWith("reject: 1 violation(s)"), text);
 * ok(text.includes('dot_git ".git/config"'), text);
 * ```
 */
export function renderScopeReport(
  report: PatchJudgement,
  lists: ScopeLists = { allow: [], forbid: [], protect: [] },
): string {
  const n = report.violations.length;
  const files = report.summaries;
  const lines = [
    report.verdict === "accept"
      ? `accept: ${files.length} file(s), no violations`
      : `reject: ${n} violation(s)${
        report.denied === null ? "" : `, policy denies ${report.denied}`
      } in a patch of ${files.length} file(s)`,
  ];
  if (files.length > 0) lines.push("files:");
  for (const f of files) {
    const name = f.oldPath !== null && f.newPath !== null && f.oldPath !== f.newPath
      ? `${shown(f.oldPath)} -> ${shown(f.newPath)}`
      : shown(f.newPath ?? f.oldPath);
    const mode = f.oldMode !== f.newMode && f.oldMode !== null && f.newMode !== null
      ? ` (mode ${f.oldMode} -> ${f.newMode})`
      : "";
    const size = f.binary ? "binary" : `+${f.additions} -${f.deletions}`;
    lines.push(`  ${f.status.padEnd(9)} ${name} ${size}${mode}`);
  }
  if (n > 0) lines.push("violations:");
  for (const v of report.violations) {
    const where = v.path === "" ? "" : ` ${shown(v.path)}`;
    // The rule it broke (which glob, and why for a default one), as verify's detail says it.
    const rule = violationRule(v, lists);
    lines.push(
      `  ${v.code}${where}: ${JSON.stringify(v.detail).slice(1, -1)}${
        rule === null ? "" : ` (${rule})`
      }`,
    );
  }
  if (report.denied !== null) {
    const denied = report.denied;
    const paths = report.classification.files.filter((f) => f.classes.includes(denied));
    lines.push(`policy: denies ${denied} (policy_denied:${denied})`);
    for (const f of paths) lines.push(`  ${denied} ${shown(f.path)}`);
  }
  return lines.join("\n") + "\n";
}

/** The `scope` command. */
export const scopeCommand: CliCommand = {
  ...listedCommand("scope", HELP, { 0: "accept", 1: "reject (including an unparsable patch)" }),
  async run(args, io) {
    const { values, positionals } = parseCommandLine(args, {
      patch: { type: "string" },
      allow: { type: "string", multiple: true },
      forbid: { type: "string", multiple: true },
      write: { type: "string", multiple: true },
      "reject-symlinks": { type: "boolean", default: false },
      ...JSON_FLAG,
    });
    if (positionals.length > 0) {
      throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
    }
    if (values.patch === undefined) throw new UsageError("--patch FILE is required");
    // The same lists `vouch verify` builds: the default forbidden paths unless allowed by name.
    const allow = values.allow ?? [];
    const forbid = [...DEFAULT_FORBID.filter((f) => !allow.includes(f)), ...(values.forbid ?? [])];
    const rules = {
      ...(allow.length > 0 ? { allow } : {}),
      forbid,
      ...(values.write === undefined ? {} : { write: values.write }),
      rejectSymlinks: values["reject-symlinks"],
    };
    try {
      for (const list of [allow, forbid, values.write ?? []]) compileGlobs(list);
    } catch (error) {
      if (error instanceof GlobError) throw new UsageError(error.message);
      throw error;
    }
    const bytes = await readPatch(values.patch);
    const report = judgePatch(bytes, rules);
    if (values.json) {
      const json = {
        verdict: report.verdict,
        reasons: report.reasons,
        files: report.summaries.map((f) => ({
          oldPath: f.oldPath,
          newPath: f.newPath,
          status: f.status,
          additions: f.additions,
          deletions: f.deletions,
          binary: f.binary,
          oldMode: f.oldMode,
          newMode: f.newMode,
        })),
        violations: report.violations.map((v) => ({
          code: v.code,
          path: v.path,
          detail: v.detail,
        })),
        sensitive: report.classification.sensitive,
        policyDenied: report.denied,
      };
      io.out(JSON.stringify(jsonDocument(json), null, 2) + "\n");
    } else {
      io.out(renderScopeReport(report, { allow, forbid, protect: [] }));
    }
    return report.verdict === "accept" ? EXIT.ok : EXIT.rejected;
  },
};
