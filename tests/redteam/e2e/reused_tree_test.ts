// Red team: ONE clean tree serves the baseline and every round (issue 15). Whatever a run
// leaves in it (a build artefact, a mode change, a same-size rewrite of a protected test file
// with its mtime put back) must be gone before the next verification: each of these checks
// passes only on such a leftover, so every verification must fail them. Real git, real bwrap.
import { deepEqual, equal } from "node:assert/strict";
import { readdirSync } from "node:fs";
import { createRepo, git } from "../../golden/fixture_repos.ts";
import { createCleanVerifier } from "../../../adapters/verification/clean_verifier.ts";
import { EventLog } from "../../../adapters/log/store.ts";
import { importMacKey } from "../../../adapters/keys/mac_key.ts";
import { ReceiptRecorder } from "../../../adapters/receipts/chain.ts";
import type { OutcomeContract } from "../../../kernel/contract/types.ts";
import { createCleanTreePool } from "../../../adapters/worktree/tree_pool.ts";

const key = await importMacKey(new Uint8Array(32).fill(9), "test");

const check = (name: string, shell: string): OutcomeContract["checks"][number] => ({
  name,
  run: { shell },
  expect: [{ kind: "exit-zero" }],
  timeoutMs: 30_000,
  baseline: false,
  differential: null,
  tests: null,
});

const CONTRACT: OutcomeContract = {
  description: "each check passes only on what an earlier run left behind",
  checks: [
    // Hidden artefact: an ignored build output from the baseline or an earlier round.
    check(
      "artefact",
      "test -f dist/cache && exit 0; mkdir -p dist && echo hit > dist/cache; exit 1",
    ),
    // Untracked file beside the sources.
    check("untracked", "test -f src/generated.ts && exit 0; echo x > src/generated.ts; exit 1"),
    // Mode change of a tracked file.
    check("mode", "test -x tool.sh && exit 0; chmod +x tool.sh; exit 1"),
    // Test editing: the protected test is weakened in place, same size, mtime put back.
    check(
      "guard",
      "grep -q LOOSE guard.txt && exit 0; printf 'LOOSE\\n' > guard.txt; " +
        "touch -d '2020-01-01 00:00:00' guard.txt; exit 1",
    ),
  ],
  protect: ["guard.txt"],
};

const ADD_NOTE = (text: string) =>
  new TextEncoder().encode(
    [
      "diff --git a/note.txt b/note.txt",
      "new file mode 100644",
      "--- /dev/null",
      "+++ b/note.txt",
      "@@ -0,0 +1 @@",
      `+${text}`,
      "",
    ].join("\n"),
  );

for (const sandbox of ["auto", "none"] as const) {
  Deno.test(`reused clean tree (sandbox ${sandbox}): no leftover of the baseline or a round is seen`, async () => {
    const repo = await createRepo(
      {
        "README.md": "# x\n",
        "tool.sh": "#!/bin/sh\necho tool\n",
        "guard.txt": "STRICT\n",
        ".gitignore": "dist/\n",
        "src/a.ts": "export const a = 1;\n",
      },
      "true",
      { prefix: "vouch-reuse-rt-" },
    );
    const root = await Deno.makeTempDir({ prefix: "vouch-reuse-rt-wt-" });
    const log = await EventLog.open(`${root}/events.jsonl`);
    try {
      await git(repo.dir, "update-index", "--chmod=-x", "tool.sh");
      const base = (await git(repo.dir, "rev-parse", "HEAD")).trim();
      const verifier = createCleanVerifier({
        repo: repo.dir,
        base,
        taskId: "t-reuse",
        contract: CONTRACT,
        receipts: ReceiptRecorder.resume(log, key, log.openReport.lastReceipt),
        sandbox,
        worktreeRoot: `${root}/trees`,
      });
      const signal = () => AbortSignal.timeout(120_000);
      const failedChecks = (run: { summaries: readonly { name: string; passed: boolean }[] }) =>
        run.summaries.filter((s) => !s.passed).map((s) => s.name).sort();
      const all = ["artefact", "guard", "mode", "untracked"];

      const baseline = await verifier.baseline(signal(), () => {});
      deepEqual(failedChecks(baseline), all);
      for (const round of [1, 2, 3]) {
        const run = await verifier.verify(round, ADD_NOTE(`round ${round}`), signal(), () => {});
        equal(run.ran, true, run.why);
        equal(run.passed, false);
        deepEqual(failedChecks(run), all, `round ${round}`);
      }
      // One tree served all four runs.
      const [repoDir] = readdirSync(`${root}/trees`);
      deepEqual(readdirSync(`${root}/trees/${repoDir}`), ["t-reuse-1-verify"]);
      await verifier.settle();
      deepEqual(readdirSync(`${root}/trees`).flatMap((d) => readdirSync(`${root}/trees/${d}`)), []);
    } finally {
      await log.close();
      await repo.cleanup();
      await Deno.remove(root, { recursive: true }).catch(() => {});
    }
  });
}

Deno.test("pooled clean trees (vouch batch): the next candidate's verifier sees no leftover of the last", async () => {
  const repo = await createRepo(
    {
      "README.md": "# x\n",
      "tool.sh": "#!/bin/sh\necho tool\n",
      "guard.txt": "STRICT\n",
      ".gitignore": "dist/\n",
      "src/a.ts": "export const a = 1;\n",
    },
    "true",
    { prefix: "vouch-pool-rt-" },
  );
  const root = await Deno.makeTempDir({ prefix: "vouch-pool-rt-wt-" });
  const log = await EventLog.open(`${root}/events.jsonl`);
  const pool = createCleanTreePool();
  try {
    await git(repo.dir, "update-index", "--chmod=-x", "tool.sh");
    const base = (await git(repo.dir, "rev-parse", "HEAD")).trim();
    const top = (await git(repo.dir, "rev-parse", "--show-toplevel")).trim();
    const signal = () => AbortSignal.timeout(120_000);
    const all = ["artefact", "guard", "mode", "untracked"];
    for (const candidate of [1, 2, 3]) {
      const verifier = createCleanVerifier({
        repo: top,
        base,
        taskId: `cand-${candidate}`,
        contract: CONTRACT,
        receipts: ReceiptRecorder.resume(log, key, log.openReport.lastReceipt),
        sandbox: "auto",
        worktreeRoot: `${root}/trees`,
        pool,
      });
      const run = await verifier.verify(1, ADD_NOTE(`candidate ${candidate}`), signal(), () => {});
      equal(run.ran, true, run.why);
      deepEqual(run.summaries.filter((s) => !s.passed).map((s) => s.name).sort(), all);
      await verifier.settle();
      equal(pool.size, 1);
    }
    // The first candidate's tree served all three.
    const [repoDir] = readdirSync(`${root}/trees`);
    deepEqual(readdirSync(`${root}/trees/${repoDir}`), ["cand-1-1-verify"]);
    await pool.drain();
    deepEqual(readdirSync(`${root}/trees`).flatMap((d) => readdirSync(`${root}/trees/${d}`)), []);
  } finally {
    await pool.drain();
    await log.close();
    await repo.cleanup();
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
});
