/**
 * The baseline cache (issue 19, item 5): repeated verifications of one base
 * (CI, batch, rounds) pay for the base's checks once. An entry is keyed by the
 * base TREE id, the contract digest and an environment digest (sandbox mode and
 * read-only paths, vouch's runtime, `PATH` and the tools found on it, the
 * dependency dirs' stat manifest), lives in `<state dir>/baseline-cache/<key>.json`
 * and is never trusted blindly: it is MAC'd with the repository's receipt key
 * and checked on read, and it is only used when the log it is read for still
 * holds every receipt it cites (the receipts the baseline minted when it ran:
 * a hit re-uses them, it never re-appends or re-mints them). Anything else (a
 * bad MAC, another key, an unparsable file, a receipt missing from the log) is
 * a miss, said with `VOUCH_DEBUG`, never an error.
 *
 * @module
 */
import { lstatSync, readdirSync } from "node:fs";
import { mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { delimiter, join } from "node:path";
import process from "node:process";
import { canonicalDigest, canonicalJson } from "../canonical_json/canonical_json.ts";
import { findDependencyDirs } from "../deps/dependency_plan.ts";
import { gitChecked } from "../git/git_checked.ts";
import { fleetMac, verifyFleetMac } from "../keys/fleet_key.ts";
import type { MacKey } from "../keys/mac_key.ts";
import { readLogFile } from "../log/store.ts";
import { verifyReceiptsAgainstLog } from "../receipts/chain.ts";
import type { BaselineCapture, OutcomeContract } from "../../kernel/contract/types.ts";
import type { VerificationRun } from "./verifier.ts";

/** Bump when what a baseline entry means changes (grading code, entry shape). */
// v2: deno test checks get per-test reports (junit); v3: so do deno task checks whose task is one.
const CACHE_VERSION = "vouch-baseline-cache-v3";
const DOMAIN = `${CACHE_VERSION}\n`;
const HOST_ENV = ["LANG", "TERM", "HOME", "RUSTUP_HOME", "CARGO_HOME", "GOPATH", "GOROOT"];
const TOOLS = ["sh", "bash", "node", "npm", "npx", "deno", "python3", "python", "pytest", "go"];

/** Where the cache lives and what seals it. */
export interface BaselineCacheOptions {
  /** Directory of the entries (`<state dir>/baseline-cache`). */
  readonly dir: string;
  /** The repository's receipt key (MACs the entries). */
  readonly key: MacKey;
  /** The event log the receipts must be in for a hit. */
  readonly logPath: string;
  /** Told why an entry missed (`VOUCH_DEBUG`). */
  readonly onDebug?: (line: string) => void;
}

/** What the round's judgement needs from a baseline. */
export interface BaselineEntry {
  /** The task whose baseline ran (its receipts are cited). */
  readonly task: string;
  /** The base tree id. */
  readonly tree: string;
  /** When it ran (ms since epoch). */
  readonly at: number;
  /** The baseline's run as the verifier returned it (receipts included). */
  readonly run: VerificationRun;
  readonly captures: readonly BaselineCapture[];
  /** The per-test reports by check name (null: no ids readable). */
  readonly reports: readonly (readonly [string, unknown])[];
}

/** The inputs of the key. */
export interface BaselineKeyInput {
  readonly repo: string;
  readonly base: string;
  readonly contract: OutcomeContract;
  readonly contractDigest: string;
  readonly sandbox: string;
  readonly sandboxReadOnly: readonly string[];
}

// Synchronous on purpose: a dependency manifest is thousands of lstat calls, each a
// thread-pool round trip when asynchronous (1-2 s on a loaded machine for 66 MB of
// node_modules), about 20 ms in a row.
function statLine(path: string): string {
  try {
    const s = lstatSync(path);
    return `${path} ${s.ino} ${s.size} ${s.mtimeMs} ${s.mode}`;
  } catch {
    return `${path} absent`;
  }
}

/** Stat lines of a directory and its entries two levels down (dependency identity). */
function dirManifest(dir: string, depth = 2): string[] {
  const lines = [statLine(dir)];
  if (depth === 0) return lines;
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return lines;
  }
  for (const name of names) {
    const path = join(dir, name);
    let isDir = false;
    try {
      isDir = lstatSync(path).isDirectory();
    } catch {
      // Gone meanwhile: its stat line says absent.
    }
    if (isDir) lines.push(...dirManifest(path, depth - 1));
    else lines.push(statLine(path));
  }
  return lines;
}

async function whichAll(names: readonly string[]): Promise<string[]> {
  const dirs = (process.env.PATH ?? "").split(delimiter).filter((d) => d !== "");
  const out: string[] = [];
  for (const name of names) {
    let found = `${name} absent`;
    for (const d of dirs) {
      const path = join(d, name);
      const s = await stat(path).catch(() => null);
      if (s?.isFile()) {
        found = `${name} ${path} ${s.ino} ${s.size} ${s.mtimeMs}`;
        break;
      }
    }
    out.push(found);
  }
  return out;
}

/**
 * The cache key of a baseline, with the base tree id it names; null when the
 * key cannot be computed (then there is no cache: a miss).
 *
 * @example
 * ```ts ignore
 * const k = await baselineKey({ repo, base, contract, contractDigest, sandbox: "auto", sandboxReadOnly: [] });
 * ```
 */
export async function baselineKey(
  input: BaselineKeyInput,
): Promise<{ key: string; tree: string } | null> {
  try {
    const tree = (await gitChecked(["rev-parse", "--verify", `${input.base}^{tree}`], {
      cwd: input.repo,
    })).stdout.head.trim();
    const firstWords = input.contract.checks.map((c) =>
      "shell" in c.run ? c.run.shell.trim().split(/\s+/)[0] ?? "" : c.run.argv[0] ?? ""
    ).filter((w) => w !== "" && !w.includes("/") && !w.includes("="));
    const deps = await findDependencyDirs(input.repo);
    const manifest: string[] = [];
    for (const d of deps.sort()) manifest.push(...dirManifest(join(input.repo, d)));
    const readOnly: string[] = [];
    for (const p of [...input.sandboxReadOnly].sort()) readOnly.push(...dirManifest(p, 1));
    const env = {
      v: CACHE_VERSION,
      sandbox: input.sandbox,
      sandboxReadOnly: readOnly,
      runtime: { ...process.versions },
      path: process.env.PATH ?? "",
      // What else of the host's environment reaches a check or picks its toolchain.
      hostEnv: HOST_ENV.map((n) => `${n}=${process.env[n] ?? ""}`),
      tools: await whichAll([...new Set([...TOOLS, ...firstWords])]),
      deps: manifest,
    };
    const key = canonicalDigest({
      tree,
      contract: input.contractDigest,
      env: canonicalDigest(env),
    }).replace(/^sha256:/, "");
    return { key, tree };
  } catch {
    return null;
  }
}

/** The entry of `key` when it is sealed by this key and every receipt it cites is in the log. */
export async function readBaselineEntry(
  opts: BaselineCacheOptions,
  key: string,
): Promise<BaselineEntry | null> {
  const debug = (why: string) => opts.onDebug?.(`baseline cache: miss (${why})`);
  let text: string;
  try {
    text = await readFile(join(opts.dir, `${key}.json`), "utf8");
  } catch {
    debug("no entry");
    return null;
  }
  try {
    const sealed = JSON.parse(text) as { entry?: unknown; key?: unknown; mac?: unknown };
    if (sealed.key !== key || typeof sealed.entry !== "object" || sealed.entry === null) {
      debug("entry is not of this key");
      return null;
    }
    const body = canonicalJson({ key, entry: sealed.entry });
    if (!await verifyFleetMac(opts.key, DOMAIN, body, sealed.mac)) {
      debug("bad MAC or another key");
      return null;
    }
    const entry = sealed.entry as BaselineEntry;
    const log = await readLogFile(opts.logPath);
    if (log.status === "tampered") {
      debug("log does not verify");
      return null;
    }
    const issue = await verifyReceiptsAgainstLog(entry.run.receipts, log.records, opts.key);
    if (issue !== null) {
      debug(`its receipts are not in this log: ${issue.detail}`);
      return null;
    }
    return entry;
  } catch (error) {
    debug(`unreadable: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  }
}

/** Seals and writes an entry (atomically); a failure to write is only said with `VOUCH_DEBUG`. */
export async function writeBaselineEntry(
  opts: BaselineCacheOptions,
  key: string,
  entry: BaselineEntry,
): Promise<void> {
  try {
    const plain = JSON.parse(JSON.stringify(entry));
    const mac = await fleetMac(opts.key, DOMAIN, canonicalJson({ key, entry: plain }));
    await mkdir(opts.dir, { recursive: true, mode: 0o700 });
    const path = join(opts.dir, `${key}.json`);
    const tmp = `${path}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify({ key, entry: plain, mac }), { mode: 0o600 });
    await rename(tmp, path);
  } catch (error) {
    opts.onDebug?.(`baseline cache: not written (${String(error)})`);
  }
}
