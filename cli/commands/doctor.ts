/**
 * `vouch doctor`: what this machine offers vouch (git, process groups, the
 * sandbox) and why something is missing.
 *
 * @module
 */
import { type CliCommand, EXIT } from "../command.ts";
import { listedCommand } from "./_listed.ts";
import { JSON_FLAG, parseFlags } from "./_flags.ts";
import { collectDoctorReport, type DoctorItem } from "../../adapters/host/doctor.ts";
import { probeAgentCliConfined } from "../../adapters/driver/confined_backend.ts";
import { executableOnPath } from "./run_backend.ts";
import { SANDBOX_INSTALL_HINT } from "../../adapters/host/sandbox_probe.ts";
import { jsonDocument } from "../json_document.ts";

const HELP = `vouch doctor: check what this machine offers vouch

Usage:
  vouch doctor [--json]

Runs real probes: git (2.39.2 or newer), killing a whole process group on
timeout, bubblewrap (runs \`true\` inside the same sandbox checks get;
bwrap can be installed yet fail inside containers), and the agent CLIs
\`codex\` and \`claude\` (\`--version\`; optional: \`--backend command:PATH\` and
embedded \`fn\` backends need neither). Exit 1 when something
required is missing, bwrap included: by default \`vouch run\` and \`vouch
verify\` require a working sandbox and stop with exit 5 without one (pass
\`--sandbox none\` to run checks and agents unsandboxed, warned every run).

Examples:
  vouch doctor
  vouch doctor --json
`;

function line(name: string, item: DoctorItem): string {
  const mark = item.ok ? "ok  " : "FAIL";
  return `${mark}  ${name.padEnd(14)} ${item.detail}${item.reason ? ` (${item.reason})` : ""}\n`;
}

/** `vouch doctor`. */
export const doctorCommand: CliCommand = {
  ...listedCommand("doctor", HELP, {
    0: "everything required is present",
    1: "something required is missing",
  }),
  async run(argv, io) {
    const values = parseFlags(argv, JSON_FLAG);
    const report = await collectDoctorReport();
    // Each CLI's `--version` runs its code: in the agent sandbox, as a run would.
    const agents = await Promise.all(
      ["codex", "claude"].map((name) =>
        probeAgentCliConfined(name, executableOnPath(name), report.sandbox)
      ),
    );
    if (values.json) {
      io.out(JSON.stringify(jsonDocument({ ...report, agents })) + "\n");
    } else {
      const b = report.sandbox.bwrap;
      io.out(line("deno", report.deno));
      io.out(line("git", report.git));
      io.out(line("process groups", report.processGroups));
      io.out(
        b.available
          ? `ok    ${"sandbox bwrap".padEnd(14)} ${b.version ?? "bwrap"} at ${b.path}\n`
          : `FAIL  ${"sandbox bwrap".padEnd(14)} unavailable: ${b.reason}\n` +
            `      vouch run and vouch verify will stop (exit 5): ${SANDBOX_INSTALL_HINT}\n`,
      );
      if (b.available) {
        io.out(
          `      checks and agents see system dirs, their tree and these toolchains (read-only): ${
            report.sandboxToolchains.join(", ") || "none"
          }\n`,
        );
      }
      const l = report.sandboxLimits;
      io.out(
        l.prlimit === null
          ? `FAIL  ${
            "limits".padEnd(14)
          } prlimit (util-linux) not found: limits cannot be enforced\n`
          : l.processesEnforced
          ? `ok    ${"limits".padEnd(14)} rlimits via ${l.prlimit}${
            l.cgroup !== null ? `; a pids cgroup per child under ${l.cgroup}` : ""
          }\n`
          : `info  ${"limits".padEnd(14)} rlimits via ${l.prlimit}; no cgroup vouch may make ` +
            `here, and as root the process limit is only polled (a scan of /proc every second; ` +
            `uid 0 is exempt from RLIMIT_NPROC)\n`,
      );
      for (const agent of agents) {
        io.out(
          agent.available
            ? `ok    ${`agent ${agent.name}`.padEnd(14)} ${agent.version ?? agent.executable}\n`
            : `info  ${`agent ${agent.name}`.padEnd(14)} not available: ${agent.reason}\n`,
        );
      }
    }
    return report.ok ? EXIT.ok : EXIT.rejected;
  },
};
