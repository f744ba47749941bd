/**
 * Finding the program a child runs before spawning it (like execvp). No
 * launcher program goes in front of it (see `ownGroup` in `run.ts`).
 *
 * @module
 */
import { statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { SpawnError } from "./types.ts";

export function isExecutableFile(path: string): "ok" | "missing" | "not_executable" {
  try {
    const s = statSync(path);
    if (!s.isFile()) return "not_executable";
    if ((s.mode & 0o111) === 0) return "not_executable";
    return "ok";
  } catch {
    return "missing";
  }
}

/** Resolves argv[0] like execvp would, so "cannot run" is known before spawning. */
export function resolveProgram(program: string, cwd: string, pathVar: string): string | SpawnError {
  if (program.length === 0) return { code: "not_found", message: "Cannot run: empty program name" };
  if (program.includes("/")) {
    const full = isAbsolute(program) ? program : join(cwd, program);
    const state = isExecutableFile(full);
    if (state === "ok") return program;
    return state === "missing"
      ? { code: "not_found", message: `Cannot run: ${program}: no such file` }
      : { code: "not_executable", message: `Cannot run: ${program}: not an executable file` };
  }
  let sawNonExec = false;
  for (const dir of pathVar.split(":")) {
    const state = isExecutableFile(join(dir, program));
    if (state === "ok") return join(dir, program);
    if (state === "not_executable") sawNonExec = true;
  }
  return sawNonExec
    ? { code: "not_executable", message: `Cannot run: ${program}: not executable` }
    : { code: "not_found", message: `Cannot run: ${program}: not found on PATH` };
}
