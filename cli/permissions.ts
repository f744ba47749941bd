/**
 * The one table of the Deno permissions each CLI command needs: `vouch
 * <command> --help` prints its row, README's install section shows the table,
 * and `tests/cli/narrow_flags_test.ts` runs each command under exactly these
 * flags (placeholders such as `<the patch>` filled in with real paths).
 *
 * `--allow-run` lists name exactly the programs vouch itself starts: children
 * start without a launcher in front of them (see `adapters/process/run.ts`),
 * so a list is what it says. Under `--sandbox none` checks and agents are
 * started by vouch directly, so their programs (and `prlimit`) join the list.
 *
 * @module
 */

/** The flags one command (or group of commands) runs with. */
export interface CommandPermissions {
  /** The commands this row is for (`attest verify` is a subcommand). */
  readonly commands: readonly string[];
  /** The flags, in order; `<...>` is a placeholder the user fills in. */
  readonly flags: readonly string[];
  /** Why these, in one line. */
  readonly why: string;
}

/** What `verify` and `run` start themselves: git, bwrap, find (tree walks), sh (cgroup launcher). */
export const RUN_PROGRAMS: readonly string[] = ["git", "bwrap", "find", "/bin/sh"];

const WRITING = [
  "--deny-net",
  "--deny-ffi",
  "--allow-sys=hostname",
  "--allow-read",
  "--allow-write",
  "--allow-env",
];

/**
 * The broad set of `deno task vouch` (after `--no-prompt`): what the compiled
 * binary, the queue child and the commands without a narrower row run with.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { BROAD_FLAGS } from "./permissions.ts";
 * equal(BROAD_FLAGS.at(-1), "--allow-run");
 * ```
 */
export const BROAD_FLAGS: readonly string[] = [...WRITING, "--allow-run"];

/**
 * The table, narrowest first. Commands not named in a row (`batch`,
 * `worker`, `demo`, `gc`, `init`, `doctor`, `attest export`, ...) take the
 * broad set of `deno task vouch`.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { COMMAND_PERMISSIONS } from "./permissions.ts";
 * const scope = COMMAND_PERMISSIONS.find((r) => r.commands.includes("scope"))!;
 * equal(scope.flags.join(" "), "--allow-read=<the patch>");
 * ```
 */
export const COMMAND_PERMISSIONS: readonly CommandPermissions[] = [
  {
    commands: ["scope"],
    flags: ["--allow-read=<the patch>"],
    why: "reads the patch; no write, run, env or net",
  },
  {
    commands: ["inspect"],
    flags: ["--allow-read=<the log and its key>", "--allow-env"],
    why: "reads the log and the key (env names where the key is)",
  },
  {
    commands: ["attest verify"],
    flags: ["--allow-read=<the envelope, the public key, --patch/--contract files>"],
    why: "reads the envelope and the public key",
  },
  {
    commands: ["evaluate"],
    flags: ["--allow-read=<the bundle, work unit and plan>", "--allow-run=<the deno executable>"],
    why: "starts one child (the same deno, Deno.execPath()) that may only read those three paths",
  },
  {
    commands: ["verify", "run"],
    flags: [...WRITING, `--allow-run=${RUN_PROGRAMS.join(",")}`],
    why:
      "read/write: the repo, worktrees, keys and temp dirs are chosen at run time; run: checks\n" +
      "  and agents start inside bwrap (with --sandbox none add prlimit and their programs)",
  },
  {
    commands: ["batch", "worker", "demo", "gc", "init", "doctor", "attest export"],
    flags: BROAD_FLAGS,
    why: "the broad set of `deno task vouch`",
  },
];

/**
 * The row for `command` (`attest verify` for `attest` with `verify`), or the
 * broad row.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { permissionsOf } from "./permissions.ts";
 * equal(permissionsOf("verify").flags.at(-1), "--allow-run=git,bwrap,find,/bin/sh");
 * equal(permissionsOf("gc").flags.at(-1), "--allow-run");
 * ```
 */
export function permissionsOf(command: string): CommandPermissions {
  return COMMAND_PERMISSIONS.find((r) => r.commands.includes(command)) ??
    COMMAND_PERMISSIONS.at(-1)!;
}

/**
 * The lines `vouch <command> --help` prints about permissions.
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { renderPermissions } from "./permissions.ts";
 * ok(renderPermissions("scope").startsWith("Deno permissions:\n  --allow-read=<the patch>\n"));
 * ```
 */
export function renderPermissions(command: string): string {
  const rows = COMMAND_PERMISSIONS.filter((r) =>
    r.commands.some((c) => c === command || c.startsWith(`${command} `))
  );
  const shown = rows.length > 0 ? rows : [permissionsOf(command)];
  return shown.map((r) => {
    const sub = r.commands.find((c) => c.startsWith(`${command} `));
    const label = sub !== undefined ? `Deno permissions (${sub})` : "Deno permissions";
    return `${label}:\n  ${r.flags.join(" ")}\n  ${r.why}\n`;
  }).join("");
}
