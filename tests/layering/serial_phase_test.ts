/**
 * Keeps the test task honest: `deno test --parallel` runs test files as
 * workers of ONE process, so a test file that changes process-wide state
 * (`Deno.env.set`/`delete`, an assignment to `process.env`, `Deno.chdir`,
 * `process.chdir`) or reads and writes the host's cgroup tree must be in the
 * serial list of `tests/_phases.ts`, directly or through a helper it imports.
 * Also: the phases are defined only there (`deno.json` runs them through
 * `tools/run_tests.ts`), and every serial entry exists.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { importSpecifiers } from "./_imports.ts";
import { FAST, FIRST, PHASES, SERIAL } from "../_phases.ts";

const ROOT = normalize(join(dirname(fileURLToPath(import.meta.url)), "../.."));

/** What changes process-wide state, each with the words of a failure message. */
const PROCESS_WIDE: readonly { readonly re: RegExp; readonly what: string }[] = [
  { re: /\bDeno\.env\.(?:set|delete)\s*\(/, what: "sets Deno.env" },
  { re: /\bprocess\.env(?:\.\w+|\[[^\]]+\])\s*=(?!=)/, what: "assigns process.env" },
  { re: /\bdelete\s+process\.env\b/, what: "deletes from process.env" },
  { re: /\b(?:Deno|process)\.chdir\s*\(/, what: "changes the working directory" },
  { re: /\bcgroupHost\s*\(/, what: "touches the host's cgroup tree" },
];

/** Read in the raw source (a path is a string): the host's cgroup tree named directly. */
const CGROUP_PATH = /["'`]\/sys\/fs\/cgroup\b/;

/**
 * The source without comments and with every string literal emptied: a
 * comment that names `Deno.env.set`, or a fixture file's text that assigns
 * `process.env`, changes nothing in this process.
 */
function code(source: string): string {
  let out = "";
  for (let i = 0; i < source.length;) {
    const c = source[i]!;
    const next = source[i + 1];
    if (c === "/" && next === "/") {
      while (i < source.length && source[i] !== "\n") i++;
    } else if (c === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2);
      i = end < 0 ? source.length : end + 2;
    } else if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      while (j < source.length && source[j] !== c && (c === "`" || source[j] !== "\n")) {
        j += source[j] === "\\" ? 2 : 1;
      }
      out += c + c;
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** What `source` does to process-wide state (empty: nothing). */
export function processWideUses(source: string): string[] {
  const text = code(source);
  const uses = PROCESS_WIDE.filter((p) => p.re.test(text)).map((p) => p.what);
  if (CGROUP_PATH.test(source)) uses.push("names the host's cgroup tree");
  return uses;
}

/** A test file by Deno's default pattern (`*_test.ts`, `*.test.ts`, `test.ts`). */
function isTestFile(path: string): boolean {
  return /(?:^|[/_.])test\.(?:ts|tsx|mts|js|mjs|jsx)$/.test(path);
}

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    const path = join(dir, entry.name);
    if (entry.name === "node_modules" || path === join(ROOT, "tests/fixtures")) continue;
    if (entry.isDirectory) out.push(...tsFiles(path));
    else if (entry.isFile && /\.(?:ts|tsx|mts)$/.test(entry.name)) out.push(path);
  }
  return out;
}

function isSerial(rel: string): boolean {
  return SERIAL.some((s) => s.endsWith("/") ? rel.startsWith(s) : rel === s);
}

/**
 * Every test file (repository-relative) that changes process-wide state,
 * itself or through a helper of tests/ it imports, with why.
 */
function processWideTestFiles(): Map<string, string> {
  const tests = join(ROOT, "tests");
  const files = tsFiles(tests);
  const sources = new Map(files.map((f) => [f, Deno.readTextFileSync(f)]));
  const memo = new Map<string, string | null>();
  const why = (file: string, seen: Set<string>): string | null => {
    if (memo.has(file)) return memo.get(file)!;
    if (seen.has(file)) return null;
    seen.add(file);
    const source = sources.get(file);
    if (source === undefined) return null;
    const own = processWideUses(source);
    let reason: string | null = own.length > 0 ? own.join(", ") : null;
    for (const spec of importSpecifiers(source)) {
      if (reason !== null) break;
      if (!spec.startsWith(".")) continue;
      const target = normalize(join(dirname(file), spec));
      if (!target.startsWith(tests + "/")) continue;
      const inner = why(target, seen);
      if (inner !== null) reason = `${inner} (through ${relative(ROOT, target)})`;
    }
    memo.set(file, reason);
    return reason;
  };
  const out = new Map<string, string>();
  for (const file of files) {
    // This file's self-test quotes what it looks for.
    if (!isTestFile(file) || file === fileURLToPath(import.meta.url)) continue;
    const reason = why(file, new Set());
    if (reason !== null) out.set(relative(ROOT, file), reason);
  }
  return out;
}

Deno.test("every test file that changes process-wide state runs in the serial phase", () => {
  const found = processWideTestFiles();
  assert.ok(found.size > 0, "the scan found no test file at all that changes process state");
  const missing = [...found].filter(([rel]) => !isSerial(rel)).map(([rel, why]) =>
    `${rel}: ${why}`
  );
  assert.deepEqual(
    missing,
    [],
    `add these to SERIAL in tests/_phases.ts (deno test --parallel shares one process):\n${
      missing.join("\n")
    }`,
  );
});

Deno.test("every serial entry exists; the parallel phase runs every other test file once", () => {
  for (const s of SERIAL) assert.ok(existsSync(join(ROOT, s)), `SERIAL names a missing ${s}`);
  const parallel = PHASES.find((p) => p.name === "tests (parallel)")!.args.filter((a) =>
    !a.startsWith("-")
  );
  assert.equal(new Set(parallel).size, parallel.length, "a file is listed twice");
  const expected = tsFiles(join(ROOT, "tests")).map((f) => relative(ROOT, f)).filter((rel) =>
    isTestFile(rel) && !rel.startsWith("tests/kernel/") && !isSerial(rel)
  );
  assert.ok(expected.length > 100, `only ${expected.length} test files found`);
  assert.deepEqual([...parallel].sort(), expected.sort());
  // The serial files, in their two processes, are SERIAL's, each once.
  const serial = PHASES.filter((p) => p.name.startsWith("tests (serial")).flatMap((p) =>
    p.args.filter((a) => !a.startsWith("-"))
  );
  assert.deepEqual([...serial].sort(), [...SERIAL].sort());
  assert.deepEqual(parallel.slice(0, FIRST.length), [...FIRST]);
  for (const f of FIRST) assert.ok(existsSync(join(ROOT, f)), `FIRST names a missing ${f}`);
});

Deno.test("deno.json's test task runs the phases of tests/_phases.ts and lists none itself", () => {
  const config = JSON.parse(Deno.readTextFileSync(join(ROOT, "deno.json")));
  const task: string = config.tasks.test;
  assert.match(task, /tools\/run_tests\.ts/);
  assert.doesNotMatch(task, /--ignore|--parallel|tests\//);
});

Deno.test("test:fast runs the FAST list through tools/run_tests.ts; it names no serial file", () => {
  const config = JSON.parse(Deno.readTextFileSync(join(ROOT, "deno.json")));
  assert.match(config.tasks["test:fast"], /tools\/run_tests\.ts --fast$/);
  for (const f of FAST) {
    assert.ok(existsSync(join(ROOT, f)), `FAST names a missing ${f}`);
    assert.ok(!isSerial(f) && !SERIAL.some((s) => s.startsWith(f)), `FAST names serial ${f}`);
  }
});

Deno.test("the process-state scanner sees what it must, and only that (self-test)", () => {
  for (
    const src of [
      `Deno.env.set("XDG_STATE_HOME", dir);`,
      `Deno.env.delete("HOME")`,
      `process.env.HOME = "/x";`,
      `process.env["HOME"] = "/x";`,
      `delete process.env.HOME;`,
      `Deno.chdir(repo);`,
      `process.chdir(repo);`,
      `const host = cgroupHost();`,
      `readdirSync("/sys/fs/cgroup/vouch")`,
    ]
  ) assert.notDeepEqual(processWideUses(src), [], src);
  for (
    const src of [
      `Deno.env.get("HOME")`,
      `if (process.env.HOME === "/x") {}`,
      `const env = { ...Deno.env.toObject(), XDG_STATE_HOME: dir };`,
      `// Deno.env.set("X", "1") would race`,
      `/** calls Deno.chdir(repo) in a comment */`,
      `new Deno.Command("git", { cwd: repo })`,
    ]
  ) assert.deepEqual(processWideUses(src), [], src);
});
