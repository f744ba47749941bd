import assert from "node:assert/strict";
import fc from "fast-check";
import { detectVerifyCommand } from "../../../adapters/verify_command/mod.ts";
import { stripJsonComments } from "../../../kernel/text/jsonc.ts";

async function repo(files: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "vouch-verify-" });
  for (const [name, text] of Object.entries(files)) {
    await Deno.writeTextFile(`${dir}/${name}`, text);
  }
  return dir;
}

const CASES: [string, Record<string, string>, string | null, unknown, string | null][] = [
  ["deno.json", { "deno.json": '{"tasks":{"test":"deno test -A"}}' }, "deno.json", [
    "DENO",
    "task",
    "test",
  ], "deno"],
  [
    "deno.jsonc object task",
    { "deno.jsonc": '{ // c\n "tasks": { "test": { "command": "deno test", }, }, }' },
    "deno.json",
    ["DENO", "task", "test"],
    "deno",
  ],
  ["package.json jest", { "package.json": '{"scripts":{"test":"jest --ci"}}' }, "package.json", [
    "npm",
    "test",
    "--silent",
  ], "jest"],
  [
    "npm placeholder ignored",
    { "package.json": '{"scripts":{"test":"echo \\"Error: no test specified\\" && exit 1"}}' },
    null,
    null,
    null,
  ],
  [
    "pytest.ini",
    { "pytest.ini": "[pytest]\n" },
    "pytest",
    ["python3", "-m", "pytest", "-rfE"],
    "pytest",
  ],
  ["pyproject", { "pyproject.toml": "[tool.pytest.ini_options]\naddopts='-q'\n" }, "pytest", [
    "python3",
    "-m",
    "pytest",
    "-rfE",
  ], "pytest"],
  [
    "setup.cfg",
    { "setup.cfg": "[tool:pytest]\n" },
    "pytest",
    ["python3", "-m", "pytest", "-rfE"],
    "pytest",
  ],
  [
    "Cargo.toml",
    { "Cargo.toml": "[package]\nname='x'\n" },
    "Cargo.toml",
    ["cargo", "test"],
    "cargo",
  ],
  ["go.mod", { "go.mod": "module x\n" }, "go.mod", ["go", "test", "./..."], "go"],
  [
    "Makefile",
    { Makefile: "build:\n\ttrue\ntest: build\n\ttrue\n" },
    "Makefile",
    ["make", "test"],
    null,
  ],
  ["Makefile without test", { Makefile: "build:\n\ttrue\n" }, null, null, null],
  [
    "deno wins over package.json",
    {
      "deno.json": '{"tasks":{"test":"deno test"}}',
      "package.json": '{"scripts":{"test":"vitest"}}',
    },
    "deno.json",
    ["DENO", "task", "test"],
    "deno",
  ],
  [
    "package.json wins over Makefile",
    { "package.json": '{"scripts":{"test":"vitest run"}}', Makefile: "test:\n" },
    "package.json",
    ["npm", "test", "--silent"],
    "vitest",
  ],
  ["broken json falls through", { "package.json": "{nope", "go.mod": "module x\n" }, "go.mod", [
    "go",
    "test",
    "./...",
  ], "go"],
  ["nothing", {}, null, null, null],
];

for (const [label, files, source, argv, tests] of CASES) {
  Deno.test(`detectVerifyCommand: ${label}`, async () => {
    const dir = await repo(files);
    try {
      const v = detectVerifyCommand(dir, { denoExecutable: "DENO" });
      assert.equal(v?.source ?? null, source);
      assert.deepEqual(v === null ? null : "argv" in v.run ? v.run.argv : v.run.shell, argv);
      assert.equal(v?.tests ?? null, tests);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("an explicit --verify always wins", async () => {
  const dir = await repo({ "deno.json": '{"tasks":{"test":"deno test"}}' });
  try {
    const v = detectVerifyCommand(dir, { explicit: "pytest -x tests/" });
    assert.deepEqual(v, {
      run: { shell: "pytest -x tests/" },
      source: "explicit",
      tests: "pytest",
    });
    const a = detectVerifyCommand(dir, { explicit: ["cargo", "test", "--lib"] });
    assert.deepEqual(a, {
      run: { argv: ["cargo", "test", "--lib"] },
      source: "explicit",
      tests: "cargo",
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("stripJsonComments keeps JSON strings intact (property)", () => {
  fc.assert(
    fc.property(fc.jsonValue(), (v) => {
      const text = JSON.stringify(v, null, 1);
      assert.deepEqual(JSON.parse(stripJsonComments(text)), JSON.parse(text));
    }),
    { numRuns: 200 },
  );
  assert.deepEqual(JSON.parse(stripJsonComments('{"a": ",]", "b": "/* x */", "c": [1,],}')), {
    a: ",]",
    b: "/* x */",
    c: [1],
  });
});
