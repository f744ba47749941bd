/**
 * Supervisor overhead of `vouch verify` on a real patch, against the bare
 * minimum a careful human would do: a fresh worktree, `git apply --index`, the
 * test command, remove the worktree. The test suite takes about one second
 * (a real `deno test` whose test waits 900 ms). Deno reports the ratio against
 * the baseline entry in one run. Target: under 1.3x.
 */
import { dirname } from "node:path";
import { contractFromCommand } from "../adapters/verification/clean_verifier.ts";
import { createRepo, git } from "../tests/golden/fixture_repos.ts";
import { type BudgetSpec, interleavedMs } from "./_budget.ts";
import { mustVerify, sh } from "./_verify.ts";

const TEST = `'${Deno.execPath()}' test --no-check --no-prompt --quiet`;
const repo = await createRepo(
  {
    "deno.json": '{ "lock": false }\n',
    "math.ts": "export function add(a: number, b: number): number {\n  return a - b;\n}\n",
    "math_test.ts": [
      'import { add } from "./math.ts";',
      'Deno.test("add adds (about one second)", async () => {',
      "  await new Promise((r) => setTimeout(r, 900));",
      "  if (add(2, 3) !== 5) throw new Error();",
      "});",
      "",
    ].join("\n"),
  },
  TEST,
  { prefix: "vouch-bench-" },
);
await Deno.writeTextFile(
  `${repo.dir}/math.ts`,
  "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
);
const patch = new TextEncoder().encode(await git(repo.dir, "diff", "--binary", "--full-index"));
await git(repo.dir, "checkout", "--", "math.ts");
const patchFile = `${repo.dir}/../fix.patch`;
await Deno.writeFile(patchFile, patch);
const state = await Deno.makeTempDir({ prefix: "vouch-bench-state-" });
const contract = contractFromCommand(TEST, 60_000);
let n = 0;

async function bare(): Promise<void> {
  const wt = `${state}/bare-${n++}`;
  await sh(repo.dir, `git worktree add -q --detach '${wt}' HEAD`);
  await sh(wt, `git apply --index '${patchFile}' && ${TEST}`);
  await sh(repo.dir, `git worktree remove --force '${wt}'`);
}

function verify(sandbox: "none" | "auto"): Promise<void> {
  return mustVerify(state, { dir: repo.dir, patch, contract, sandbox });
}

Deno.bench({
  group: "verify_overhead",
  name: "bare: worktree + git apply --index + test",
  baseline: true,
  n: 5,
  warmup: 1,
  fn: bare,
});

for (const sandbox of ["none", "auto"] as const) {
  Deno.bench({
    group: "verify_overhead",
    name: `vouch verify (sandbox ${sandbox})`,
    n: 5,
    warmup: 1,
    // An async function: Deno.bench awaits only those (a plain arrow's promise is not awaited).
    fn: async () => await verify(sandbox),
  });
}

/** Budgets checked by `deno task bench:check` (docs/benchmarks.md). */
export const budgets: readonly BudgetSpec[] = [{
  id: "verify.overhead",
  measures: "vouch verify (library verifyPatchInRepo, default sandbox auto) of a real patch " +
    "against a one-second deno test suite, ms",
  peer: "bare git worktree add + git apply --index + the test command + git worktree remove",
  bound: "<= 1.15x",
  measure: () => interleavedMs(() => verify("auto"), bare, { warmup: 1, rounds: 7 }),
}];

globalThis.addEventListener("unload", () => {
  Deno.removeSync(state, { recursive: true });
  // Not `${repo.dir}/..`: removing a path that ends in ".." empties the directory but leaves it.
  Deno.removeSync(dirname(repo.dir), { recursive: true });
});
