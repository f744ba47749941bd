/**
 * What a run costs as the repository grows (issue 15): generated repositories
 * of 1k, 10k, 30k and 100k files (`VOUCH_BENCH_SIZES=30000` or any list to
 * choose; 100k files are ~800 MB and take ~30 s to generate), each with a
 * one-line change. Per size, in one run:
 * - bare: `git worktree add` + `git worktree remove` (the baseline of the group);
 * - bare verify: worktree add + `git apply --index` + the test + remove;
 * - `vouch verify` of the one-line patch (the CLI, as users run it);
 * - `vouch run --max-rounds 1` with a `command:` agent that fixes it at once;
 * - `vouch run --max-rounds 3` with a `command:` agent that fails twice.
 * Deno prints each entry's time and its ratio to the bare worktree add; each
 * further round is (run with 3 rounds - run with 1 round) / 2.
 * Targets on 30k files: run (1 round) <= 2.5x bare add; each further round
 * <= 0.3x of it; verify <= 1.3x bare verify. The CLIs run with `--sandbox none`
 * unless `VOUCH_BENCH_SANDBOX=auto`. Every iteration starts after a `sync` (untimed), so no entry
 * pays for the writeback of the checkouts before it.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import process from "node:process";
import { VOUCH_TASK_FLAGS } from "../tests/golden/cli_harness.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const SIZES = (process.env.VOUCH_BENCH_SIZES ?? "1000,10000,30000,100000").split(",").map(Number);
/**
 * Times `fn` after a `sync`: each checkout writes the whole repository, and without it every entry
 * would pay for the writeback of the ones before it (the later entries the most), which measures
 * the disk's backlog, not the entry.
 */
function timed(fn: () => void): (b: Deno.BenchContext) => void {
  return (b) => {
    spawnSync("sync");
    b.start();
    fn();
    b.end();
  };
}

for (const size of SIZES) {
  if (!Number.isInteger(size) || size < 4) throw new Error(`VOUCH_BENCH_SIZES: bad size ${size}`);
}
const SANDBOX = process.env.VOUCH_BENCH_SANDBOX ?? "none";
const VOUCH_FLAGS = ["run", ...VOUCH_TASK_FLAGS, `${ROOT}cli/main.ts`];
const TEST = "grep -qx fixed src/target.txt";
const scratch = mkdtempSync(join(tmpdir(), "vouch-bench-reuse-"));
// Per size: a further round's time read from the 3-round run's event log, and the bare add.
const rounds = new Map<number, number[]>();
globalThis.addEventListener("unload", () => {
  for (const [size, ms] of rounds) {
    const each = ms.map((m) => (m / 1000).toFixed(2)).join(", ");
    console.log(`${size} files: a further round (from the 3-round run's event log): ${each} s`);
  }
  rmSync(scratch, { recursive: true, force: true });
});

/**
 * The mean time of the rounds after the first in a run's event log: from the
 * second round's `backend_started` to the last `verification_result`.
 */
function furtherRoundMs(log: string): number {
  const at = (kind: string) =>
    log.trim().split("\n").map((l) => JSON.parse(l))
      .filter((r) => r.kind === "kernel.event" && r.body?.kind === kind)
      .map((r) => r.ts as number);
  const started = at("backend_started");
  const verified = at("verification_result");
  if (started.length < 2 || verified.length === 0) throw new Error("the run had no second round");
  return (verified.at(-1)! - started[1]!) / (started.length - 1);
}

function sh(cwd: string, command: string, env: Record<string, string> = {}): void {
  const r = spawnSync("sh", ["-c", command], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  if (r.status !== 0) {
    throw new Error(`bench command failed (${r.status}): ${command}\n${r.stderr}`);
  }
}

function vouch(cwd: string, args: string[], expectCode: number): void {
  const r = spawnSync(Deno.execPath(), [...VOUCH_FLAGS, ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== expectCode) {
    throw new Error(
      `vouch ${args[0]} exited ${r.status}, wanted ${expectCode}\n${r.stdout}\n${r.stderr}`,
    );
  }
}

/** A repository of `files` files (~8 KB each, 100 per directory) with a failing target. */
function generate(files: number): { repo: string; patch: string; state: string; agents: string } {
  const dir = join(scratch, `r${files}`);
  const repo = join(dir, "repo");
  mkdirSync(join(repo, "src"), { recursive: true });
  const body = "export const line = 'some generated source text of a realistic width';\n".repeat(
    110,
  );
  for (let i = 0; i < files - 3; i++) {
    const sub = join(repo, "pkg", `d${Math.floor(i / 100)}`);
    if (i % 100 === 0) mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `f${i}.ts`), `// ${i}\n${body}`);
  }
  writeFileSync(join(repo, "src", "target.txt"), "broken\n");
  writeFileSync(join(repo, ".gitignore"), ".count\n");
  writeFileSync(join(repo, "README.md"), "generated\n");
  const g = (...a: string[]) => execFileSync("git", a, { cwd: repo, stdio: "pipe" });
  g("init", "-q", "-b", "main");
  g("add", "-A");
  g("-c", "user.email=b@x", "-c", "user.name=b", "commit", "-qm", "base");
  writeFileSync(join(repo, "src", "target.txt"), "fixed\n");
  const patch = join(dir, "fix.patch");
  writeFileSync(patch, g("diff", "--binary", "--full-index"));
  g("checkout", "--", "src/target.txt");
  const agents = join(dir, "agents");
  mkdirSync(agents);
  // Counts its rounds in an ignored file of its (kept) worktree; fixes it in round `fixAt`.
  for (const fixAt of [1, 3]) {
    const p = join(agents, `fix_at_${fixAt}.sh`);
    writeFileSync(
      p,
      `#!/bin/sh\nn=$(cat .count 2>/dev/null || echo 0); n=$((n+1)); echo $n > .count\n` +
        `if [ $n -ge ${fixAt} ]; then echo fixed > src/target.txt; ` +
        `else echo wrong$n > src/target.txt; fi\n`,
      { mode: 0o755 },
    );
  }
  const state = join(dir, "state");
  mkdirSync(state);
  return { repo, patch, state, agents };
}

for (const size of SIZES) {
  const r = generate(size);
  const group = `${size} files`;
  const wtRoot = join(r.state, "worktrees");
  let n = 0;
  const common = ["--sandbox", SANDBOX, "--worktree-root", wtRoot, "--verify", TEST];
  const env = { VOUCH_KEY_FILE: join(r.state, "key") };
  Object.assign(process.env, env);
  Deno.bench(
    { group, name: "bare: git worktree add + remove", baseline: true, n: 3, warmup: 1 },
    timed(() => {
      const wt = join(r.state, `bare-${n++}`);
      sh(
        r.repo,
        `git worktree add -q --detach '${wt}' HEAD && git worktree remove --force '${wt}'`,
      );
    }),
  );
  Deno.bench(
    { group, name: "bare: worktree add + git apply + test + remove", n: 3, warmup: 1 },
    timed(() => {
      const wt = join(r.state, `bare-${n++}`);
      sh(r.repo, `git worktree add -q --detach '${wt}' HEAD`);
      sh(wt, `git apply --index '${r.patch}' && ${TEST}`);
      sh(r.repo, `git worktree remove --force '${wt}'`);
    }),
  );
  // `vouch run` with an agent that fixes the target in round `round`, at most `round` rounds.
  const runFixedAt = (round: number) => {
    sh(r.repo, "rm -rf .vouch");
    vouch(r.repo, [
      "run",
      "--backend",
      `command:${r.agents}/fix_at_${round}.sh`,
      "--goal",
      "fix the target",
      "--max-rounds",
      String(round),
      ...common,
    ], 0);
  };
  Deno.bench(
    { group, name: "vouch verify (one-line patch)", n: 2, warmup: 0 },
    timed(() => {
      vouch(r.repo, ["verify", "--patch", r.patch, ...common], 0);
    }),
  );
  Deno.bench(
    { group, name: "vouch run --max-rounds 1", n: 1, warmup: 0 },
    timed(() => {
      runFixedAt(1);
    }),
  );
  Deno.bench(
    { group, name: "vouch run --max-rounds 3 (fails twice)", n: 1, warmup: 0 },
    timed(() => {
      runFixedAt(3);
      const ms = furtherRoundMs(readFileSync(join(r.repo, ".vouch", "events.jsonl"), "utf8"));
      rounds.set(size, [...(rounds.get(size) ?? []), ms]);
    }),
  );
}
