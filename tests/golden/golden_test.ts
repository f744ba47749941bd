import assert from "node:assert/strict";
import {
  createDenoRepo,
  createNodeRepo,
  createRepo,
  denoProjectFiles,
  denoTestCommand,
} from "./fixture_repos.ts";
import { e2e, RUNTIMES } from "./cli_harness.ts";

const script = (value: unknown) => JSON.stringify(value) + "\n";

for (const runtime of RUNTIMES) {
  Deno.test(`golden [${runtime}]: fix a failing test in a Deno project (fake codex)`, async () => {
    await e2e(
      async () => {
        const repo = await createRepo({
          ...denoProjectFiles(),
          ".vouch-fake-agent.json": script({
            mode: "fix",
            edits: [{ path: "math.ts", replace: ["a - b", "a + b"] }],
          }),
        }, denoTestCommand());
        return repo;
      },
      ["--backend", "codex", "--goal", "make the tests pass", "--verify", denoTestCommand()],
      { state: "verified", code: 0 },
      (_repo, run) => {
        const rounds = run.json?.["rounds"] as { filesChanged: string[] }[];
        assert.deepEqual(rounds.at(-1)?.filesChanged, ["math.ts"]);
      },
      runtime,
    );
  });
}

for (const runtime of RUNTIMES) {
  Deno.test(`golden [${runtime}]: fix a failing test in a Node project with a real npm dependency (fake claude)`, async () => {
    await e2e(
      async () => {
        const repo = await createNodeRepo();
        const { git, writeFiles } = await import("./fixture_repos.ts");
        await writeFiles(repo.dir, {
          ".vouch-fake-agent.json": script({
            mode: "fix",
            edits: [{ path: "index.js", replace: ["Number(x) + 2", "Number(x) * 2"] }],
          }),
        });
        await git(repo.dir, "add", ".vouch-fake-agent.json");
        await git(repo.dir, "commit", "-q", "-m", "agent script");
        return repo;
      },
      ["--backend", "claude", "--goal", "make the tests pass", "--verify", "node --test"],
      { state: "verified", code: 0 },
      undefined,
      runtime,
    );
  });
}

for (const runtime of RUNTIMES) {
  Deno.test(`golden [${runtime}]: add a small feature with its tests`, async () => {
    await e2e(
      () =>
        createRepo({
          "deno.json": '{ "lock": false }\n',
          "math.ts": "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
          "math_test.ts":
            'import { add } from "./math.ts";\nDeno.test("add", () => { if (add(1, 1) !== 2) throw new Error(); });\n',
          ".vouch-fake-agent.json": script({
            mode: "fix",
            edits: [
              {
                path: "mul.ts",
                content:
                  "export function mul(a: number, b: number): number {\n  return a * b;\n}\n",
              },
              {
                path: "mul_test.ts",
                content:
                  'import { mul } from "./mul.ts";\nDeno.test("mul", () => { if (mul(2, 3) !== 6) throw new Error(); });\n',
              },
            ],
          }),
        }, denoTestCommand()),
      ["--backend", "codex", "--goal", "add mul() with a test", "--verify", denoTestCommand()],
      { state: "verified", code: 0 },
      (_repo, run) => {
        const rounds = run.json?.["rounds"] as { filesChanged: string[] }[];
        assert.deepEqual([...(rounds.at(-1)?.filesChanged ?? [])].sort(), [
          "mul.ts",
          "mul_test.ts",
        ]);
      },
      runtime,
    );
  });
}

for (const runtime of RUNTIMES) {
  Deno.test(`golden [${runtime}]: a docs-only change`, async () => {
    await e2e(
      () =>
        createRepo({
          "README.md": "# calc\n",
          ".vouch-fake-agent.json": script({
            mode: "fix",
            edits: [{ path: "README.md", content: "# calc\n\nUsage: `calc add 1 2`.\n" }],
          }),
        }, "grep -q Usage README.md"),
      ["--backend", "codex", "--goal", "document usage", "--verify", "grep -q Usage README.md"],
      { state: "verified", code: 0 },
      undefined,
      runtime,
    );
  });
}

Deno.test("golden: createDenoRepo fails its tests before any change", async () => {
  const repo = await createDenoRepo();
  try {
    const out = await new Deno.Command("sh", { args: ["-c", repo.verify], cwd: repo.dir }).output();
    assert.notEqual(out.code, 0);
  } finally {
    await repo.cleanup();
  }
});

for (const runtime of RUNTIMES) {
  Deno.test(`golden [${runtime}]: without --verify the repository's test command is detected (deno.json tasks.test)`, async () => {
    await e2e(
      () =>
        createRepo({
          ...denoProjectFiles(),
          "deno.json": JSON.stringify({ lock: false, tasks: { test: "deno test --no-check" } }) +
            "\n",
          ".vouch-fake-agent.json": script({
            mode: "fix",
            edits: [{ path: "math.ts", replace: ["a - b", "a + b"] }],
          }),
        }, denoTestCommand()),
      ["--backend", "codex", "--goal", "make the tests pass"],
      { state: "verified", code: 0 },
      undefined,
      runtime,
    );
  });
}

for (const runtime of RUNTIMES) {
  Deno.test(`golden [${runtime}]: --integrate branch:NAME --yes commits the verified patch on a new branch`, async () => {
    const { git } = await import("./fixture_repos.ts");
    await e2e(
      () =>
        createRepo({
          "README.md": "# calc\n",
          ".vouch-fake-agent.json": script({
            mode: "fix",
            edits: [{ path: "README.md", content: "# calc\n\nUsage: `calc add 1 2`.\n" }],
          }),
        }, "grep -q Usage README.md"),
      [
        "--backend",
        "codex",
        "--goal",
        "document usage",
        "--verify",
        "grep -q Usage README.md",
        "--integrate",
        "branch:vouch/docs",
        "--yes",
      ],
      // The only change to the checkout is the new branch ref: no file, no index, no HEAD move.
      { state: "verified", code: 0, checkoutChanges: [".git refs"] },
      async (repo, run) => {
        assert.equal(run.json?.["reason"], "integrated");
        const integrated = run.json?.["integrated"] as { branch: string; commit: string };
        assert.equal(integrated.branch, "vouch/docs");
        const tip = (await git(repo.dir, "rev-parse", "refs/heads/vouch/docs")).trim();
        assert.equal(tip, integrated.commit);
        assert.match(await git(repo.dir, "show", `${tip}:README.md`), /Usage/);
        assert.match(
          await git(repo.dir, "log", "-1", "--format=%B", tip),
          /Vouch-Patch-Digest: sha256:/,
        );
      },
      runtime,
    );
  });
}
