// Worktree lifecycle costs on a small real repository (200 files): create+remove,
// real-diff extraction after a 20-file change, and the clean tree (create + git apply --index).
// Each iteration is dominated by git process spawns; figures are indicative on a shared machine.
import { createRepo } from "../tests/golden/fixture_repos.ts";
import {
  createCleanTree,
  createWorktree,
  extractDiff,
  removeWorktree,
} from "../adapters/worktree/mod.ts";

const files: Record<string, string> = {};
for (let i = 0; i < 200; i++) files[`src/m${i}.ts`] = `export const v${i} = ${i};\n`.repeat(20);
const repo = await createRepo(files, "true");
const root = await Deno.makeTempDir({ prefix: "vouch-bench-wt-" });
const work = await createWorktree({ repo: repo.dir, taskId: "bench", attempt: 1, root });
for (let i = 0; i < 20; i++) {
  await Deno.writeTextFile(`${work.path}/src/m${i}.ts`, `export const v${i} = ${i + 1};\n`);
}
await Deno.writeTextFile(`${work.path}/src/new.ts`, "export const n = 1;\n");
const patch = (await extractDiff(work)).bytes;
let attempt = 1;
globalThis.addEventListener("unload", () => {
  Deno.removeSync(root, { recursive: true });
  Deno.removeSync(repo.dir.replace(/\/repo$/, ""), { recursive: true });
});

Deno.bench({
  group: "worktree",
  name: "createWorktree + removeWorktree",
  baseline: true,
  n: 8,
  warmup: 1,
}, async () => {
  attempt += 1;
  const wt = await createWorktree({ repo: repo.dir, taskId: "bench", attempt, root });
  await removeWorktree(wt);
});

Deno.bench(
  { group: "worktree", name: "extractDiff (21 changed of 201 files)", n: 8, warmup: 1 },
  async () => {
    await extractDiff(work);
  },
);

Deno.bench(
  { group: "worktree", name: "createCleanTree (apply --index) + remove", n: 8, warmup: 1 },
  async () => {
    attempt += 1;
    const clean = await createCleanTree({ repo: repo.dir, taskId: "bench", attempt, root, patch });
    await removeWorktree(clean.worktree);
  },
);
