/**
 * A self-made cohort for batch tests and the batch benchmark: small real Node
 * (`node --test`) and Deno (`deno test`) repositories, each with a bug, a test
 * patch that adds the failing test (failToPass) next to passing ones
 * (passToPass), and candidate patches of every kind: good, no-op, partial
 * (breaks a passToPass test), test-editing (edits the protected spec),
 * scope-creep (touches CI), empty, and one that does not apply.
 *
 * @module
 */
import { join } from "node:path";
import { git, writeFiles } from "../../golden/fixture_repos.ts";
import type { BatchReport } from "../../../adapters/batch/schema.ts";

/** The kinds of candidates, and what each must come out as. */
export const KINDS = {
  good: { status: "resolved", reason: "verified" },
  noop: { status: "unresolved", reason: "failed_tests" },
  partial: { status: "unresolved", reason: "failed_tests" },
  test_editing: { status: "unresolved", reason: "protected_path" },
  scope_creep: { status: "unresolved", reason: "scope_violation" },
  empty: { status: "empty_patch", reason: "empty_patch" },
  broken: { status: "error", reason: "patch_does_not_apply" },
} as const;

/** A candidate kind. */
export type Kind = keyof typeof KINDS;

/** Options of {@linkcode makeCohort}. */
export interface CohortOptions {
  /** Node repositories. */
  readonly node: number;
  /** Deno repositories. */
  readonly deno: number;
  /** Candidate kinds per task, in order (models are named `<kind>-<n>`). */
  readonly kinds: readonly Kind[];
  /** Milliseconds a passToPass test sleeps (suite time). @default 0 */
  readonly sleepMs?: number;
  /** Files in an installed (ignored) `node_modules` of each Node repository. @default 0 */
  readonly nodeModulesFiles?: number;
}

/** What {@linkcode makeCohort} wrote. */
export interface Cohort {
  readonly tasksFile: string;
  readonly predictionsFile: string;
  /** Per candidate id: the kind it was made as. */
  readonly expected: ReadonlyMap<string, Kind>;
  /** Per task id: the repository, base commit, test patch and test command. */
  readonly tasks: readonly {
    id: string;
    repo: string;
    base: string;
    testPatch: string;
    command: string;
  }[];
}

const DENO = Deno.execPath();

function project(flavor: "node" | "deno", sleepMs: number) {
  const wait = sleepMs > 0 ? `await new Promise((r) => setTimeout(r, ${sleepMs}));` : "";
  if (flavor === "node") {
    return {
      command: "node --test",
      tests: "node",
      src: "calc.js",
      spec: "test/add.test.js",
      srcText: (add: string, mul: string) =>
        `exports.add = (a, b) => ${add};\nexports.sub = (a, b) => a - b;\nexports.mul = (a, b) => ${mul};\n`,
      files: {
        "package.json": '{ "name": "calc", "private": true }\n',
        "test/calc.test.js":
          `const test = require("node:test");\nconst assert = require("node:assert");\nconst c = require("../calc.js");\n` +
          `test("subtracts", async () => { ${wait} assert.equal(c.sub(5, 3), 2); });\n` +
          `test("multiplies", () => { assert.equal(c.mul(4, 3), 12); });\n`,
      } as Record<string, string>,
      specText:
        `const test = require("node:test");\nconst assert = require("node:assert");\nconst c = require("../calc.js");\n` +
        `test("adds", () => { assert.equal(c.add(2, 3), 5); });\n`,
      weakSpec: `const test = require("node:test");\ntest("adds", () => {});\n`,
    };
  }
  return {
    command: `${DENO} test --no-prompt --no-check --no-lock --no-config -q`,
    tests: "deno",
    src: "calc.ts",
    spec: "add_test.ts",
    srcText: (add: string, mul: string) =>
      `export const add = (a: number, b: number) => ${add};\nexport const sub = (a: number, b: number) => a - b;\nexport const mul = (a: number, b: number) => ${mul};\n`,
    files: {
      "calc_test.ts": `import { mul, sub } from "./calc.ts";\n` +
        `Deno.test("subtracts", async () => { ${wait} if (sub(5, 3) !== 2) throw new Error("sub"); });\n` +
        `Deno.test("multiplies", () => { if (mul(4, 3) !== 12) throw new Error("mul"); });\n`,
    } as Record<string, string>,
    specText:
      `import { add } from "./calc.ts";\nDeno.test("adds", () => { if (add(2, 3) !== 5) throw new Error("add"); });\n`,
    weakSpec: `Deno.test("adds", () => {});\n`,
  };
}

async function diffOf(repo: string, files: Record<string, string>): Promise<string> {
  await writeFiles(repo, files);
  await git(repo, "add", "-A");
  const diff = await git(repo, "diff", "--cached", "--binary", "HEAD");
  await git(repo, "reset", "-q", "--hard", "HEAD");
  return diff;
}

/**
 * Writes the repositories, `tasks.jsonl` and `predictions.json` under `dir`.
 *
 * @example
 * ```ts ignore
 * const cohort = await makeCohort(dir, { node: 1, deno: 1, kinds: ["good", "noop"] });
 * ```
 */
export async function makeCohort(dir: string, opts: CohortOptions): Promise<Cohort> {
  const tasks: Cohort["tasks"][number][] = [];
  const taskLines: string[] = [];
  const predictions: { instance_id: string; model_name_or_path: string; model_patch: string }[] =
    [];
  const expected = new Map<string, Kind>();
  const flavors = [
    ...Array.from({ length: opts.node }, () => "node" as const),
    ...Array.from({ length: opts.deno }, () => "deno" as const),
  ];
  for (const [i, flavor] of flavors.entries()) {
    const id = `${flavor}-calc-${i + 1}`;
    const repo = join(dir, "repos", id);
    await Deno.mkdir(repo, { recursive: true });
    await git(repo, "init", "-q", "-b", "main");
    const p = project(flavor, opts.sleepMs ?? 0);
    const deps = flavor === "node" ? opts.nodeModulesFiles ?? 0 : 0;
    await writeFiles(repo, {
      ...p.files,
      [p.src]: p.srcText("a - b", "a * b"),
      ...(deps > 0 ? { ".gitignore": "node_modules\n" } : {}),
    });
    for (let f = 0; f < deps; f++) {
      // Packages of 20 files each, as an installed dependency tree has.
      const dir = join(repo, "node_modules", `pkg-${Math.floor(f / 20)}`);
      if (f % 20 === 0) await Deno.mkdir(dir, { recursive: true });
      await Deno.writeTextFile(join(dir, `f${f % 20}.js`), `module.exports = ${f};\n`.repeat(40));
    }
    await git(repo, "add", "-A");
    await git(repo, "commit", "-q", "-m", "calc with a bug in add");
    const base = (await git(repo, "rev-parse", "HEAD")).trim();
    const testPatch = await diffOf(repo, { [p.spec]: p.specText });
    tasks.push({ id, repo, base, testPatch, command: p.command });
    taskLines.push(JSON.stringify({
      id,
      repo: `repos/${id}`,
      base,
      verify: {
        command: p.command,
        tests: p.tests,
        failToPass: ["adds"],
        passToPass: ["subtracts", "multiplies"],
        timeout: 60,
      },
      testPatch,
    }));
    for (const [n, kind] of opts.kinds.entries()) {
      // A comment makes every candidate's patch (and so its resume key) distinct.
      const note = `\n// candidate ${n}\n`;
      const fixed = p.srcText("a + b", "a * b") + note;
      let patch: string;
      switch (kind) {
        case "good":
          patch = await diffOf(repo, { [p.src]: fixed });
          break;
        case "noop":
          patch = await diffOf(repo, { [p.src]: p.srcText("a - b", "a * b") + note });
          break;
        case "partial":
          patch = await diffOf(repo, { [p.src]: p.srcText("a + b", "a + b") + note });
          break;
        case "test_editing":
          // Applied on the base plus the spec: the candidate weakens the protected test.
          await writeFiles(repo, { [p.spec]: p.specText });
          await git(repo, "add", "-A");
          await git(repo, "commit", "-q", "-m", "tmp spec");
          patch = await diffOf(repo, { [p.spec]: p.weakSpec + note });
          await git(repo, "reset", "-q", "--hard", "HEAD~1");
          break;
        case "scope_creep":
          patch = await diffOf(repo, {
            [p.src]: fixed,
            ".github/workflows/ci.yml": `on: push${note}`,
          });
          break;
        case "empty":
          patch = "";
          break;
        case "broken":
          patch =
            `diff --git a/${p.src} b/${p.src}\n--- a/${p.src}\n+++ b/${p.src}\n@@ -1,1 +1,1 @@\n-no such line ${n}\n+x\n`;
          break;
      }
      const model = `${kind}-${n}`;
      predictions.push({ instance_id: id, model_name_or_path: model, model_patch: patch });
      expected.set(opts.kinds.length > 1 ? `${id}@${model}` : id, kind);
    }
  }
  const tasksFile = join(dir, "tasks.jsonl");
  const predictionsFile = join(dir, "predictions.json");
  await Deno.writeTextFile(tasksFile, taskLines.join("\n") + "\n");
  await Deno.writeTextFile(predictionsFile, JSON.stringify(predictions, null, 1) + "\n");
  return { tasksFile, predictionsFile, expected, tasks };
}

/**
 * A report without what timing makes differ between two runs of the same
 * batch: each candidate's `duration_s` and the `seal` over them.
 */
export function timeless(report: BatchReport): unknown {
  const { seal: _, ...rest } = report;
  return {
    ...rest,
    candidates: rest.candidates.map(({ duration_s: _d, ...c }) => c),
  };
}
