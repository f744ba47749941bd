/**
 * Enforces the kernel's purity rules: nothing under `kernel/` imports from
 * outside it (type-only imports aside), and no source there touches I/O, the
 * clock, randomness or the Deno namespace. A second check type-checks the
 * kernel against the plain ESNext library, with no Deno or DOM globals.
 */
import assert from "node:assert/strict";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = normalize(join(dirname(fileURLToPath(import.meta.url)), "../.."));
const KERNEL = join(ROOT, "kernel");

async function* tsFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* tsFiles(path);
    else if (entry.isFile && path.endsWith(".ts")) yield path;
  }
}

/** Blanks comments and string/template contents so words in docs do not count. */
export function stripCommentsAndStrings(source: string): string {
  let out = "";
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    const next = source[i + 1];
    if (c === "/" && next === "/") {
      while (i < source.length && source[i] !== "\n") i++;
    } else if (c === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2);
      const stop = end < 0 ? source.length : end + 2;
      out += source.slice(i, stop).replace(/[^\n]/g, " ");
      i = stop;
    } else if (c === '"' || c === "'" || c === "`") {
      out += c;
      i++;
      while (i < source.length && source[i] !== c) {
        if (source[i] === "\\") i++;
        else if (source[i] === "\n" && c !== "`") break;
        i++;
      }
      out += c;
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

const FORBIDDEN: readonly [RegExp, string][] = [
  [/\bDeno\s*\./, "Deno namespace"],
  [/\bfetch\s*\(/, "fetch"],
  [/\bset(?:Timeout|Interval|Immediate)\b/, "timers"],
  [/\bqueueMicrotask\b/, "queueMicrotask"],
  [/\bDate\s*\.\s*now\b/, "Date.now"],
  [/\bnew\s+Date\s*\(/, "new Date()"],
  [/\bperformance\s*\./, "performance clock"],
  [/\bMath\s*\.\s*random\b/, "Math.random"],
  [/\bcrypto\s*\./, "crypto global"],
  [/\bprocess\s*\./, "process global"],
  [/\brequire\s*\(/, "require"],
  [/\bWebAssembly\b/, "WebAssembly (pass an implementation in)"],
  [/\bconsole\s*\./, "console"],
];

const IMPORT_RE = /(?:^|\n)\s*(import|export)\s+(type\s+)?[^;]*?\bfrom\s+["']([^"']+)["']/g;
const DYNAMIC_IMPORT_RE = /\bimport\s*\(\s*["']([^"']+)["']/g;

Deno.test("kernel/ imports nothing outside itself and uses no forbidden global", async () => {
  const problems: string[] = [];
  let files = 0;
  for await (const file of tsFiles(KERNEL)) {
    files++;
    const source = await Deno.readTextFile(file);
    const rel = relative(ROOT, file);
    for (const match of source.matchAll(IMPORT_RE)) {
      const typeOnly = match[2] !== undefined;
      const spec = match[3]!;
      if (!spec.startsWith(".")) {
        problems.push(`${rel}: imports bare specifier "${spec}"`);
        continue;
      }
      const target = normalize(join(dirname(file), spec));
      if (!target.startsWith(KERNEL + "/") && !typeOnly) {
        problems.push(`${rel}: imports "${spec}" from outside kernel/`);
      }
    }
    for (const match of source.matchAll(DYNAMIC_IMPORT_RE)) {
      problems.push(`${rel}: dynamic import "${match[1]}"`);
    }
    const code = stripCommentsAndStrings(source);
    for (const [re, what] of FORBIDDEN) {
      const hit = re.exec(code);
      if (hit !== null) {
        const line = code.slice(0, hit.index).split("\n").length;
        problems.push(`${rel}:${line}: uses ${what}`);
      }
    }
  }
  assert.ok(files > 0, "no kernel sources found");
  assert.deepEqual(problems, []);
});

Deno.test("the purity scanner catches what it must (self-test)", () => {
  const bad = 'const t = Date.now(); Deno.readFile("x"); // Math.random()\nconst s = "fetch(";';
  const code = stripCommentsAndStrings(bad);
  assert.ok(/\bDate\s*\.\s*now\b/.test(code));
  assert.ok(/\bDeno\s*\./.test(code));
  assert.ok(!/Math\s*\.\s*random/.test(code), "comments are ignored");
  assert.ok(!/fetch\s*\(/.test(code), "strings are ignored");
});

Deno.test("kernel/ type-checks against plain ESNext with no Deno or DOM globals", async () => {
  const entries: string[] = [];
  for await (const file of tsFiles(KERNEL)) entries.push(relative(ROOT, file));
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["check", "--quiet", "--config", "tools/kernel_purity.deno.json", ...entries],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(result.stderr);
  assert.equal(result.code, 0, `kernel does not type-check without Deno/DOM libs:\n${stderr}`);
});

Deno.test("the ESNext-only check rejects a Deno global (self-test)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(join(dir, "bad.ts"), "export const x = Deno.pid;\n");
    await Deno.copyFile(join(ROOT, "tools/kernel_purity.deno.json"), join(dir, "deno.json"));
    const result = await new Deno.Command(Deno.execPath(), {
      args: ["check", "--quiet", "--config", join(dir, "deno.json"), join(dir, "bad.ts")],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.notEqual(result.code, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
