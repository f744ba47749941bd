/**
 * The files that are the oracle only in part (`package.json`, `deno.json`,
 * `pyproject.toml`, `setup.cfg`, `tox.ini`, `Cargo.toml`): whether a change
 * touches their test-defining keys or sections, named so the verdict can say
 * "package.json: scripts.test changed".
 *
 * @module
 */
import { parseJson, shellWords } from "./_config_text.ts";

/** What changed in a file's test-defining keys. */
export interface TestKeysChange {
  /** Whether any test-defining key or section changed (also: unreadable, created, deleted). */
  readonly changed: boolean;
  /** The keys or sections that changed, in a fixed order (`scripts.test`, `mocha`, `[tool:pytest]`). */
  readonly keys: readonly string[];
  /** One line for the screen, e.g. `package.json: scripts.test changed`, or `""`. */
  readonly message: string;
}

const PACKAGE_KEYS = ["mocha", "jest", "ava", "c8", "nyc", "tap", "babel"];

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (typeof v === "object" && v !== null) {
    const o = v as Record<string, unknown>;
    return `{${
      Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(",")
    }}`;
  }
  return JSON.stringify(v) ?? "undefined";
}

function objectAt(o: Record<string, unknown> | null, key: string): Record<string, unknown> {
  const v = o?.[key];
  return typeof v === "object" && v !== null && !Array.isArray(v)
    ? v as Record<string, unknown>
    : {};
}

/** The scripts `npm test` (or the check command) runs: test, pre/post hooks, and scripts they run. */
function testScripts(scripts: Record<string, unknown>, command: string | undefined): string[] {
  const out: string[] = [];
  const visit = (name: string, depth: number) => {
    for (const n of [`pre${name}`, name, `post${name}`]) {
      if (out.includes(n)) continue;
      out.push(n);
      const body = scripts[n];
      if (typeof body !== "string" || depth > 4) continue;
      for (const words of shellWords(body)) {
        for (let i = 0; i < words.length; i++) {
          if (!/^(?:npm|yarn|pnpm)$/.test(words[i]!)) continue;
          const sub = words[i + 1] === "run" || words[i + 1] === "run-script"
            ? words[i + 2]
            : words[i + 1];
          if (sub !== undefined) visit(sub === "t" ? "test" : sub, depth + 1);
        }
        const runAll = /^(?:npm-run-all|run-s|run-p)$/.test(words[0] ?? "");
        if (runAll) { for (const w of words.slice(1)) if (!w.startsWith("-")) visit(w, depth + 1); }
      }
    }
  };
  visit("test", 0);
  for (const words of shellWords(command ?? "")) {
    if (!/^(?:npm|yarn|pnpm)$/.test(words[0] ?? "")) continue;
    const sub = words[1] === "run" || words[1] === "run-script" ? words[2] : words[1];
    if (sub !== undefined) visit(sub === "t" ? "test" : sub, 0);
  }
  return out;
}

function jsonKeysChanged(
  before: string,
  after: string,
  keysOf: (o: Record<string, unknown> | null) => Map<string, unknown>,
): string[] | null {
  const a = parseJson(before);
  const b = parseJson(after);
  if (a === null || b === null) return null;
  const ka = keysOf(a);
  const kb = keysOf(b);
  const names = [...new Set([...ka.keys(), ...kb.keys()])];
  return names.filter((k) => canonical(ka.get(k)) !== canonical(kb.get(k)));
}

function packageKeys(command: string | undefined) {
  return (o: Record<string, unknown> | null): Map<string, unknown> => {
    const m = new Map<string, unknown>();
    const scripts = objectAt(o, "scripts");
    for (const s of testScripts(scripts, command)) m.set(`scripts.${s}`, scripts[s]);
    for (const k of PACKAGE_KEYS) m.set(k, o?.[k]);
    return m;
  };
}

function denoKeys(o: Record<string, unknown> | null): Map<string, unknown> {
  const tasks = objectAt(o, "tasks");
  return new Map<string, unknown>([["test", o?.["test"]], ["tasks.test", tasks["test"]]]);
}

/** The normalised text of each section whose header `want` selects (comments and blank lines dropped). */
function sections(text: string, want: (header: string) => boolean): Map<string, string> {
  const out = new Map<string, string>();
  let current: string | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\s+$/, "");
    const header = /^\s*(\[\[?[^\]]+\]\]?)\s*(?:#.*)?$/.exec(line);
    if (header) {
      const name = header[1]!.replace(/\s+/g, "");
      current = want(name.replace(/^\[\[?|\]\]?$/g, "")) ? name : null;
      if (current !== null) out.set(current, (out.get(current) ?? "") + "\u0000");
      continue;
    }
    if (current === null || /^\s*(?:[#;].*)?$/.test(line)) continue;
    out.set(current, out.get(current)! + line.trim() + "\n");
  }
  return out;
}

function sectionsChanged(before: string, after: string, want: (h: string) => boolean): string[] {
  const a = sections(before, want);
  const b = sections(after, want);
  const names = [...new Set([...a.keys(), ...b.keys()])].sort();
  return names.filter((n) => a.get(n) !== b.get(n));
}

const SECTION_RULES: Readonly<Record<string, (header: string) => boolean>> = {
  "pyproject.toml": (h) => h.startsWith("tool.pytest") || h.startsWith("tool.tox"),
  "setup.cfg": (h) => h === "tool:pytest",
  "tox.ini": (h) => h === "pytest" || h === "tox" || h.startsWith("testenv"),
  "Cargo.toml": (h) =>
    h === "test" || h === "lib" || h === "profile.test" || h === "dev-dependencies" ||
    /^target\..*\.dev-dependencies$/.test(h),
};

/**
 * Whether a change of a partly-oracle file touches its test-defining keys:
 * `package.json` `scripts.test` with its `pre`/`post` hooks and every script
 * they (or the check command) run, and `mocha`, `jest`, `ava`, `c8`, `nyc`,
 * `tap`, `babel`; `deno.json` `test` and `tasks.test`; `pyproject.toml`
 * `[tool.pytest.*]` / `[tool.tox]`; `setup.cfg` `[tool:pytest]`; `tox.ini`
 * `[pytest]`, `[tox]`, `[testenv*]`; `Cargo.toml` `[[test]]`, `[lib]`,
 * `[profile.test]`, dev-dependencies. A file created, deleted or unreadable
 * (invalid JSON) on either side counts as changed (fail closed). `null` is
 * "absent". Any other file name: changed whenever the texts differ.
 *
 * @example
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
 * import { testKeysChange } from "./test_keys.ts";
 * const before = '{"scripts":{"test":"mocha","lint":"eslint ."},"dependencies":{}}';
 * const cheat = '{"scripts":{"test":"mocha || true","lint":"eslint ."},"dependencies":{}}';
 * const honest = '{"scripts":{"test":"mocha","lint":"eslint src"},"dependencies":{"x":"1"}}';
 * const c = testKeysChange("package.json", before, cheat);
 * deepEqual(c.keys, ["scripts.test"]);
 * equal(c.message, "package.json: scripts.test changed");
 * equal(testKeysChange("package.json", before, honest).changed, false);
 * equal(testKeysChange("setup.cfg", "[flake8]\nx=1\n", "[flake8]\nx=2\n").changed, false);
 * equal(testKeysChange("pytest.ini", "[pytest]\n", "[pytest]\naddopts = -k 'not add'\n").changed, true);
 * ```
 */
export function testKeysChange(
  path: string,
  before: string | null,
  after: string | null,
  command?: string,
): TestKeysChange {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const result = (keys: string[], why?: string): TestKeysChange => ({
    changed: keys.length > 0 || why !== undefined,
    keys,
    message: why !== undefined
      ? `${path}: ${why}`
      : keys.length > 0
      ? `${path}: ${keys.join(", ")} changed`
      : "",
  });
  if (before === after) return result([]);
  if (before === null) return result([], "created");
  if (after === null) return result([], "deleted");
  if (name === "package.json" || name === "deno.json" || name === "deno.jsonc") {
    const keys = jsonKeysChanged(
      before,
      after,
      name === "package.json" ? packageKeys(command) : denoKeys,
    );
    return keys === null ? result([], "not readable as JSON on one side") : result(keys);
  }
  const rule = Object.hasOwn(SECTION_RULES, name) ? SECTION_RULES[name] : undefined;
  if (rule !== undefined) return result(sectionsChanged(before, after, rule));
  return result([], "changed");
}
