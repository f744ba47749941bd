/**
 * `vouch demo`: the README's first command. Builds a small temporary git
 * repository with a failing test, runs the real loop with the in-process `fn`
 * backend (round 1 claims done without fixing and is rejected; round 2 fixes the
 * bug and is verified in a clean tree), then verifies and replays the event log.
 * No network, no agent CLI.
 *
 * @module
 */
import process from "node:process";
import { JSON_FLAG, parseFlags } from "./_flags.ts";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { probeSandbox } from "../../adapters/host/sandbox_probe.ts";
import { type CliCommand, EXIT } from "../command.ts";
import { listedCommand } from "./_listed.ts";
import { fnBackend } from "../../adapters/backends/fn_backend.ts";
import { contractFromCommand } from "../../adapters/verification/clean_verifier.ts";
import { runInRepo, runOutcomeReport } from "../../adapters/driver/run_in_repo.ts";
import { renderProgressLine, renderSummary } from "../render.ts";
import { inspectLog } from "../../adapters/audit/audit_log.ts";
import { renderInspectReport } from "./inspect.ts";
import { loadOrCreateMacKey } from "../../adapters/keys/mac_key.ts";
import { kernelDemoTimeline } from "./demo_kernel_timeline.ts";
import { gitChecked } from "../../adapters/git/git_checked.ts";

const HELP = `vouch demo: watch vouch reject a false "done" and verify a real fix

Usage:
  vouch demo [--keep] [--json] [--kernel-only]

Builds a temporary git repository whose test fails, then runs the real loop
with a scripted in-process agent: round 1 claims "done" without fixing
anything (rejected), round 2 fixes the bug (verified in a clean tree). Finally
the event log is verified and replayed through the kernel. No network, no agent
CLI, a few seconds.

Options:
  --keep         keep the temporary repository and print its path
  --json         print the run outcome as JSON on stdout
  --kernel-only  only drive the kernel through a lifecycle with in-memory fake
                 adapters and print its timeline (no git, no processes)

Examples:
  vouch demo
  deno task demo
`;

const FILES: Record<string, string> = {
  "deno.json": '{ "lock": false }\n',
  "math.ts": "export function add(a: number, b: number): number {\n  return a - b;\n}\n",
  "math_test.ts": [
    'import { add } from "./math.ts";',
    "",
    'Deno.test("add adds", () => {',
    "  if (add(2, 3) !== 5) throw new Error(`add(2, 3) = ${add(2, 3)}, expected 5`);",
    "});",
    "",
  ].join("\n"),
};

/** The demo's checks run `deno test`: this deno under Deno, `deno` on PATH under Node. */
function denoExecutable(): string {
  return (process.versions as { deno?: string }).deno !== undefined ? process.execPath : "deno";
}

async function buildRepo(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [name, content] of Object.entries(FILES)) {
    await writeFile(`${dir}/${name}`, content);
  }
  const env = {
    GIT_AUTHOR_NAME: "demo",
    GIT_AUTHOR_EMAIL: "demo@example.invalid",
    GIT_COMMITTER_NAME: "demo",
    GIT_COMMITTER_EMAIL: "demo@example.invalid",
  };
  await gitChecked(["init", "-q", "-b", "main"], { cwd: dir });
  await gitChecked(["add", "-A"], { cwd: dir, env });
  await gitChecked(["commit", "-q", "-m", "calculator with a failing test"], { cwd: dir, env });
}

/** The scripted fixer: claims done without fixing first, fixes on the next round. */
export const demoFixer = fnBackend("demo-fixer", async (task) => {
  if (task.attempt === 1) {
    return { summary: "All done! The tests pass now.", done: true };
  }
  const file = `${task.worktree}/math.ts`;
  const text = await readFile(file, "utf8");
  await writeFile(file, text.replace("return a - b;", "return a + b;"));
  return { summary: "Fixed add(): it subtracted instead of adding.", done: true };
});

/** `vouch demo`. */
export const demoCommand: CliCommand = {
  ...listedCommand("demo", HELP, {
    0: "the demo ran as shown",
    1: "the demo did not go as expected",
  }),
  async run(argv, io) {
    const values = parseFlags(argv, {
      keep: { type: "boolean", default: false },
      ...JSON_FLAG,
      "kernel-only": { type: "boolean", default: false },
    });
    if (values["kernel-only"]) {
      for (const line of kernelDemoTimeline()) io.out(`${line}\n`);
      return EXIT.ok;
    }
    const root = await mkdtemp(join(tmpdir(), "vouch-demo-"));
    const repo = `${root}/calculator`;
    const say = (text: string) => values.json ? io.err(text) : io.out(text);
    try {
      await buildRepo(repo);
      say(`demo repository: ${repo} (math_test.ts fails: add() subtracts)\n`);
      // The demo's agent is in-process; its checks use bwrap when it works and otherwise run
      // unsandboxed, said plainly (`vouch run`/`verify` would stop instead, exit 5).
      const probe = await probeSandbox();
      const sandbox = probe.bwrap.available ? "bwrap" : "none";
      say(
        probe.bwrap.available
          ? "checks run in the bwrap sandbox\n\n"
          : `note: bubblewrap does not work here (${probe.bwrap.reason}), so this demo runs its ` +
            "checks UNSANDBOXED, as you; `vouch run` and `vouch verify` refuse to do that without " +
            "--sandbox none (install: sudo apt-get install bubblewrap)\n\n",
      );
      const outcome = await runInRepo({
        dir: repo,
        goal: "Make the failing test in math_test.ts pass.",
        backend: demoFixer,
        contract: contractFromCommand(
          `'${denoExecutable()}' test --no-check --no-prompt --quiet`,
          60_000,
          ["math_test.ts"],
        ),
        maxRounds: 3,
        wallTimeMs: 120_000,
        sandbox,
        keyEnv: { VOUCH_KEY_FILE: `${root}/state/key`, XDG_STATE_HOME: `${root}/state` },
        worktreeRoot: `${root}/worktrees`,
        onProgress: (p) => {
          if (p.phase !== "done") say(`${renderProgressLine(p)}\n`);
        },
      });
      say(`\n${renderSummary(outcome)}`);
      // Inspect: the hash chain, every receipt and minted patch (MACs, anchors), replay.
      const key = await loadOrCreateMacKey({
        repoRoot: repo,
        env: { VOUCH_KEY_FILE: `${root}/state/key` },
        create: false,
      });
      const report = await inspectLog(outcome.logPath, { key });
      say(`\n$ vouch inspect (what it verifies: chain, receipts, patch MAC, replay)\n`);
      say(renderInspectReport(report, key.keyId));
      if (values.json) io.out(JSON.stringify(runOutcomeReport(outcome)) + "\n");
      const ok = outcome.state === "verified" && outcome.rounds.length === 2 &&
        report.verdict === "verified";
      if (values.keep) say(`kept: ${root}\n`);
      return ok ? EXIT.ok : EXIT.rejected;
    } finally {
      if (!values.keep) await rm(root, { recursive: true, force: true }).catch(() => {});
    }
  },
};
