/**
 * What a runner's configuration (and the check command) names: support files
 * it loads (`--require`, `setupFiles`, `-p plugin`), spec globs and test
 * roots. Read from texts the caller passes; tolerant of anything (a config
 * this cannot read names nothing, and its own file is the oracle anyway).
 *
 * @module
 */

import {
  dirOf,
  iniSection,
  iniWords,
  isGlob,
  joinRepo,
  MAX_VALUES,
  parseJson,
  plainGlobs,
  shellWords,
  strings,
  textValues,
} from "./_config_text.ts";

/** What the configs name. */
export interface Named {
  /** Exact repository paths, each with reasons. */
  readonly exact: Map<string, string[]>;
  /** Directories whose whole content is named, each with reasons. */
  readonly dirs: Map<string, string[]>;
  /** Globs (gitignore syntax after brace expansion), each with its reason. */
  readonly globs: { readonly pattern: string; readonly reason: string }[];
}

const MODULE_EXTS = [".js", ".cjs", ".mjs", ".ts", ".cts", ".mts", ".jsx", ".tsx", ".json"];

class Collector {
  readonly named: Named = { exact: new Map(), dirs: new Map(), globs: [] };
  #count = 0;

  #push(map: Map<string, string[]>, key: string, reason: string): void {
    if (this.#count++ > 4 * MAX_VALUES) return;
    const list = map.get(key);
    if (list === undefined) map.set(key, [reason]);
    else if (!list.includes(reason)) list.push(reason);
  }

  /** A module a runner loads: the path and its extension and index variants. */
  module(base: string, spec: string, reason: string): void {
    const s = spec.replace(/^<rootDir>\//, "").trim();
    if (s === "" || isGlob(s) || /^[a-z]+:/.test(s)) return;
    const root = spec.startsWith("<rootDir>/") ? "" : base;
    const p = joinRepo(root, s);
    if (p === null) return;
    this.#push(this.named.exact, p, reason);
    for (const ext of MODULE_EXTS) this.#push(this.named.exact, p + ext, reason);
    for (const ext of MODULE_EXTS.slice(0, 6)) {
      this.#push(this.named.exact, `${p}/index${ext}`, reason);
    }
  }

  /** A Python module named by dotted name (`-p plugin`): `a/b.py` and `a/b/__init__.py`. */
  pyModule(base: string, dotted: string, reason: string): void {
    if (!/^[A-Za-z_][\w.]*$/.test(dotted)) return;
    const rel = dotted.replaceAll(".", "/");
    for (const root of [base, joinRepo(base, "src") ?? "src"]) {
      const p = joinRepo(root, rel);
      if (p === null) continue;
      this.#push(this.named.exact, `${p}.py`, reason);
      this.#push(this.named.exact, `${p}/__init__.py`, reason);
    }
  }

  /** A spec: a file, a directory or a glob. */
  spec(base: string, spec: string, reason: string, dirMeans: "all" | "ignore" = "ignore"): void {
    const s = spec.replace(/^<rootDir>\//, "").trim();
    if (s === "" || s.startsWith("-")) return;
    const root = spec.startsWith("<rootDir>/") ? "" : base;
    if (isGlob(s)) {
      for (const g of plainGlobs(s)) {
        const p = g.startsWith("**/") ? g : joinRepo(root, g);
        if (p !== null && this.named.globs.length < MAX_VALUES) {
          this.named.globs.push({ pattern: `/${p}`.replace(/^\/\*\*\//, "**/"), reason });
        }
      }
      return;
    }
    const p = joinRepo(root, s.replace(/::.*$/, "").replace(/\/+$/, ""));
    if (p === null) return;
    this.#push(this.named.exact, p, reason);
    if (dirMeans === "all") this.#push(this.named.dirs, p, reason);
  }
}

const LOAD_FLAGS = new Set([
  "--require",
  "-r",
  "--file",
  "--import",
  "--loader",
  "--experimental-loader",
  "--config",
  "--setupFiles",
  "--setup-files",
  "--globalSetup",
  "--rootDir",
  "--test-reporter",
  "--reporter",
  "-R",
  "-c",
]);
/** Task runners whose own file defines what the check runs. */
const TASK_FILES: Readonly<Record<string, readonly string[]>> = {
  make: ["Makefile", "makefile", "GNUmakefile"],
  just: ["justfile", "Justfile", ".justfile"],
  tox: ["tox.ini"],
  nox: ["noxfile.py"],
  rake: ["Rakefile"],
  task: ["Taskfile.yml", "Taskfile.yaml"],
};
const RUNNER_WORDS =
  /(?:^|\/)(?:node|mocha|_mocha|jest|vitest|tap|tape|ava|deno|pytest|py\.test|python3?|c8|nyc|sh|bash)$/;

/** What one command names: files after loading flags, specs after a runner word. */
function commandNames(
  c: Collector,
  base: string,
  command: string,
  where: string,
  scripts: Record<string, unknown> | null,
  depth = 0,
  file = "package.json",
): void {
  for (const words of shellWords(command)) {
    let runnerSeen = false;
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!;
      // npm run X, yarn X, pnpm X: follow the script (bounded).
      if (scripts !== null && depth < 4 && /^(?:npm|yarn|pnpm)$/.test(w)) {
        const sub = words[i + 1] === "run" || words[i + 1] === "run-script"
          ? words[i + 2]
          : words[i + 1];
        const name = sub === "t" ? "test" : sub;
        if (name !== undefined && typeof scripts[name] === "string") {
          commandNames(
            c,
            base,
            scripts[name] as string,
            `${file} scripts.${name}`,
            scripts,
            depth + 1,
            file,
          );
          for (const hook of [`pre${name}`, `post${name}`]) {
            if (typeof scripts[hook] === "string") {
              commandNames(
                c,
                base,
                scripts[hook] as string,
                `${file} scripts.${hook}`,
                scripts,
                depth + 1,
                file,
              );
            }
          }
        }
        break;
      }
      const eq = w.indexOf("=");
      const flag = w.startsWith("-") && eq > 0 ? w.slice(0, eq) : w;
      if (LOAD_FLAGS.has(flag)) {
        const value = eq > 0 && w.startsWith("-") ? w.slice(eq + 1) : words[++i];
        if (value !== undefined) c.module(base, value, `${flag} support file (${where})`);
        continue;
      }
      if (flag === "-p" && words[i + 1] !== undefined) {
        c.pyModule(base, words[++i]!, `pytest plugin (-p) in ${where}`);
        continue;
      }
      if (RUNNER_WORDS.test(w)) {
        runnerSeen = true;
        continue;
      }
      if (i === 0 && !w.startsWith("-") && (w.includes("/") || /\.(?:sh|py|[cm]?js|ts)$/.test(w))) {
        c.module(base, w, `run by ${where}`);
      }
      const task = w.slice(w.lastIndexOf("/") + 1);
      // Own entries only: a word `valueOf` or `constructor` is no task runner.
      const definer = i === 0 && Object.hasOwn(TASK_FILES, task) ? TASK_FILES[task] : undefined;
      if (definer !== undefined) {
        for (const f of definer) c.spec(base, f, `defines the check (${w}, in ${where})`);
      }
      if (runnerSeen && !w.startsWith("-") && (/[/*]/.test(w) || /\.\w+(?:::|$)/.test(w))) {
        c.spec(base, w, `named by ${where}`, "ignore");
      }
    }
  }
}

/** A runner's options, as read from a JSON config or from the text of a JS/TS one. */
type ConfigObject = Readonly<Record<string, unknown>>;

/** The object under `key` (a package.json's `mocha` or `jest`), or null when there is none. */
function objectAt(v: ConfigObject, key: string): ConfigObject | null {
  const o = v[key];
  return typeof o === "object" && o !== null ? o as ConfigObject : null;
}

function mochaOptions(c: Collector, base: string, v: ConfigObject, where: string): void {
  for (const s of strings(v["require"])) {
    c.module(base, s, `mocha --require support file (${where})`);
  }
  for (const s of strings(v["file"])) c.module(base, s, `mocha --file support file (${where})`);
  for (const s of strings(v["spec"])) c.spec(base, s, `mocha spec (${where})`, "all");
  for (const s of strings(v["reporter"])) c.module(base, s, `mocha reporter (${where})`);
  for (const s of strings(v["ui"])) c.module(base, s, `mocha ui (${where})`);
}

const JEST_MODULE_KEYS = [
  "setupFiles",
  "setupFilesAfterEnv",
  "globalSetup",
  "globalTeardown",
  "testEnvironment",
  "snapshotResolver",
  "testRunner",
  "testSequencer",
  "resolver",
  "runner",
  "reporters",
  "transform",
  "moduleNameMapper",
];

function jestOptions(c: Collector, base: string, v: ConfigObject, where: string): void {
  for (const k of JEST_MODULE_KEYS) {
    for (const s of strings(v[k], 2)) c.module(base, s, `jest ${k} (${where})`);
  }
  for (const s of strings(v["testMatch"])) c.spec(base, s, `jest testMatch (${where})`);
  for (const s of strings(v["roots"])) c.spec(base, s, `jest roots (${where})`, "ignore");
}

function pytestOptions(c: Collector, base: string, s: Record<string, string>, where: string): void {
  for (const p of iniWords(s["testpaths"])) c.spec(base, p, `pytest testpaths (${where})`);
  for (const p of iniWords(s["python_files"])) {
    c.spec(base, p.includes("/") ? p : `**/${p}`, `pytest python_files (${where})`);
  }
  const addopts = iniWords(s["addopts"]).join(" ");
  if (addopts !== "") commandNames(c, base, `pytest ${addopts}`, `addopts of ${where}`, null);
}

function configNames(c: Collector, path: string, text: string, command: string | undefined): void {
  const base = dirOf(path);
  const name = path.slice(base === "" ? 0 : base.length + 1);
  if (name === "package.json") {
    const pkg = parseJson(text);
    if (pkg === null) return;
    const scripts = typeof pkg["scripts"] === "object" && pkg["scripts"] !== null
      ? pkg["scripts"] as Record<string, unknown>
      : {};
    commandNames(c, base, "npm test", path, scripts, 0, path);
    if (command !== undefined && /^\s*(?:npm|yarn|pnpm)\b/.test(command)) {
      commandNames(c, base, command, "the check command", scripts, 0, path);
    }
    const mocha = objectAt(pkg, "mocha");
    if (mocha !== null) mochaOptions(c, base, mocha, `${path} mocha`);
    const jest = objectAt(pkg, "jest");
    if (jest !== null) jestOptions(c, base, jest, `${path} jest`);
  } else if (/^\.mocharc/.test(name)) {
    const json = /\.jsonc?$|^\.mocharc$/.test(name) ? parseJson(text) : null;
    if (json !== null) mochaOptions(c, base, json, name);
    else {
      const v: Record<string, unknown> = {};
      for (const k of ["require", "file", "spec", "reporter", "ui"]) v[k] = textValues(text, k);
      mochaOptions(c, base, v, name);
    }
  } else if (/^jest\.config\./.test(name)) {
    const json = name.endsWith(".json") ? parseJson(text) : null;
    if (json !== null) jestOptions(c, base, json, name);
    else {
      const v: Record<string, unknown> = {};
      for (const k of [...JEST_MODULE_KEYS, "testMatch", "roots"]) v[k] = textValues(text, k);
      jestOptions(c, base, v, name);
    }
  } else if (/^(?:vitest|vite)\.(?:config|workspace)\./.test(name)) {
    for (const k of ["setupFiles", "globalSetup", "environment", "reporters"]) {
      for (const s of textValues(text, k)) c.module(base, s, `vitest ${k} (${name})`);
    }
    for (const s of textValues(text, "include")) c.spec(base, s, `vitest include (${name})`);
  } else if (/^\.?pytest\.(?:ini|toml)$/.test(name)) {
    pytestOptions(c, base, iniSection(text, (h) => h === "pytest"), name);
  } else if (name === "tox.ini") {
    pytestOptions(c, base, iniSection(text, (h) => h === "pytest"), name);
  } else if (name === "setup.cfg") {
    pytestOptions(c, base, iniSection(text, (h) => h === "tool:pytest"), name);
  } else if (name === "pyproject.toml") {
    pytestOptions(
      c,
      base,
      iniSection(text, (h) => h === "tool.pytest.ini_options" || h === "tool.pytest"),
      name,
    );
  } else if (name === "Cargo.toml") {
    const lines = text.split(/\r?\n/);
    let inTest = false;
    for (const l of lines) {
      const h = /^\s*\[\[?([^\]]+)\]\]?/.exec(l);
      if (h) inTest = h[1]!.trim() === "test";
      const p = /^\s*path\s*=\s*"([^"]+)"/.exec(l);
      if (inTest && p) c.spec(base, p[1]!, `cargo [[test]] target (${name})`);
    }
  } else if (name === "deno.json" || name === "deno.jsonc") {
    const cfg = parseJson(text);
    const test = cfg?.["test"];
    if (typeof test === "object" && test !== null) {
      for (const s of strings((test as Record<string, unknown>)["include"])) {
        c.spec(base, s, `deno test include (${name})`);
      }
    }
    const tasks = cfg?.["tasks"];
    if (typeof tasks === "object" && tasks !== null) {
      const t = (tasks as Record<string, unknown>)["test"];
      const cmd = typeof t === "string" ? t : strings(t)[0];
      if (cmd !== undefined) commandNames(c, base, cmd, `${name} tasks.test`, null);
    }
  }
}

/** What the configs and the command name. */
export function namedByConfigs(
  configs: Readonly<Record<string, string | readonly string[]>>,
  command: string | undefined,
): Named {
  const c = new Collector();
  const paths = Object.keys(configs).sort();
  for (const path of paths) {
    const value = configs[path]!;
    for (const text of typeof value === "string" ? [value] : value) {
      try {
        configNames(c, path, text, path.endsWith("package.json") ? command : undefined);
      } catch {
        // A config this cannot read names nothing; its own file is still the oracle.
      }
    }
  }
  if (command !== undefined) commandNames(c, "", command, "the check command", null);
  return c.named;
}
