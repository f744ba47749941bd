/**
 * `deno task compile`: a standalone `vouch` built by `deno compile` into
 * `dist/vouch-deno` (its own path: `dist/vouch` is the single executable
 * `deno task sea` makes, and stays). `deno compile` needs Deno's `denort`
 * runtime: from `DENORT_BIN`, or downloaded from Deno's servers. Offline and
 * without `DENORT_BIN` it says so in one line and exits 1 (`deno task sea` is
 * the offline path). The binary carries the CLI's module graph and the npm
 * packages it imports (zod, hash-wasm, the ACP SDK, canonicalize, bullmq), not
 * the build, bench and test tools (those live in the `tests`, `bench` and
 * `tools` workspace members' import maps).
 *
 *   deno task compile [--output PATH] [--no-check]
 *
 * `--no-check` skips `deno compile`'s type check of the CLI (its own config, so
 * none of `deno check`'s cache answers it): for the test, whose type checks are
 * `deno task test`'s `deno check --doc .` phase.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { BROAD_FLAGS } from "../cli/permissions.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** Where `deno task compile` writes by default (never the SEA's `dist/vouch`). */
export const COMPILE_OUTPUT: string = join(ROOT, "dist/vouch-deno");

/** The permission flags the compiled binary runs with (those of `deno task vouch`). */
export const COMPILE_FLAGS: readonly string[] = ["--no-prompt", ...BROAD_FLAGS];

/**
 * Why `deno compile` cannot run here, in one line, or `null` when it can:
 * `DENORT_BIN` names an executable file, or `online` (Deno's servers are
 * reachable, so `deno compile` downloads its `denort`).
 */
export function compileBlocker(
  env: Record<string, string | undefined>,
  online: boolean,
): string | null {
  const denort = env["DENORT_BIN"];
  if (denort !== undefined && denort !== "") {
    let ok = false;
    try {
      const info = statSync(denort);
      ok = info.isFile() && (info.mode & 0o111) !== 0;
    } catch {
      ok = false;
    }
    return ok ? null : `Cannot compile: DENORT_BIN=${denort} is not an executable file`;
  }
  if (online) return null;
  return "Cannot compile: deno compile needs Deno's denort runtime and dl.deno.land is unreachable " +
    "(set DENORT_BIN=/path/to/denort, or use `deno task sea` for the offline single executable)";
}

/**
 * A config for `deno compile` outside the workspace (`dist/compile/deno.json`): the root's
 * runtime `imports` and `compilerOptions`, no workspace members and its own lock. `deno
 * compile` embeds every npm package of the lock's snapshot; the workspace's lock also holds the
 * members' tools (binaryen alone is 93 MB), this one only what the CLI imports.
 */
export function runtimeConfig(): string {
  const root = JSON.parse(readFileSync(join(ROOT, "deno.json"), "utf8"));
  const dir = join(ROOT, "dist/compile");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "deno.json");
  writeFileSync(
    path,
    JSON.stringify({ imports: root.imports, compilerOptions: root.compilerOptions }, null, 2) +
      "\n",
  );
  return path;
}

/** Whether Deno's download host answers (a HEAD request with a short timeout). */
async function denoServersReachable(): Promise<boolean> {
  try {
    const r = await fetch("https://dl.deno.land/release-latest.txt", {
      method: "HEAD",
      signal: AbortSignal.timeout(5_000),
    });
    return r.ok;
  } catch {
    return false;
  }
}

if (import.meta.main) {
  const at = Deno.args.indexOf("--output");
  const output = at >= 0 && Deno.args[at + 1] !== undefined
    ? resolve(Deno.args[at + 1]!)
    : COMPILE_OUTPUT;
  const env = Deno.env.toObject();
  const blocker = compileBlocker(env, env["DENORT_BIN"] ? true : await denoServersReachable());
  if (blocker !== null) {
    console.error(`deno task compile: ${blocker}`);
    Deno.exit(1);
  }
  if (!existsSync(dirname(output))) mkdirSync(dirname(output), { recursive: true });
  const config = runtimeConfig();
  const r = spawnSync(Deno.execPath(), [
    "compile",
    ...(Deno.args.includes("--no-check") ? ["--no-check"] : []),
    ...COMPILE_FLAGS,
    "--config",
    config,
    "--lock",
    join(dirname(config), "deno.lock"),
    "--output",
    output,
    join(ROOT, "cli/main.ts"),
  ], { stdio: "inherit" });
  if (r.status !== 0) Deno.exit(r.status ?? 1);
  console.log(output);
}
