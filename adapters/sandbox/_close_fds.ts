/**
 * The first program of every sandboxed command: a shell that closes every
 * file descriptor but stdin, stdout and stderr, then `exec`s the command.
 *
 * Why: neither the runtime's spawn (Deno.Command, node:child_process) nor
 * bwrap closes the fds a process inherited without close-on-exec. Whatever
 * vouch's own parent left open (a CI wrapper's or an agent harness's pipe,
 * `make`'s jobserver, a shell's `exec 50<>file`) reached every check, setup
 * command, agent and tool command, open: the sandbox could read and write the
 * host file behind it, whatever the allowlisted filesystem said. The fds vouch
 * passes bwrap itself (the user map's `--info-fd 8` and
 * `--userns-block-fd 9`) were left open in the command too.
 *
 * It runs inside the sandbox, after bwrap has set it up (so bwrap has used
 * its fds by then), as the first program after `--`: before `setpriv` and an
 * agent's egress forwarder, which then start with none either. The fds are
 * listed from `/proc/self/fd` (the sandbox's own `/proc`).
 *
 * bash where the host has it (`/bin/bash`, `/usr/bin/bash`; part of the
 * allowlisted root): dash, Debian's `/bin/sh`, cannot name an fd above 9 in a
 * redirection. Without bash the shell closes 3 to 9 and refuses to run the
 * command (status 125, a `vouch:` line on stderr) when a higher one is open:
 * fails closed. bash imports no function from the environment here:
 * `BASH_FUNC_*` names are refused in every child's environment
 * (`adapters/process/env.ts`), and `exec` and `eval` are special builtins.
 *
 * @module
 */
import { executable } from "./_executable.ts";

/** The shell's `$0` (what a `ps` inside the sandbox shows until the exec). */
export const CLOSE_FDS_NAME = "vouch-close-fds";

const CLOSE_FDS = `[ -d /proc/self/fd ] ||
  { echo "vouch: cannot list the open file descriptors (/proc/self/fd)" >&2; exit 125; }
for f in /proc/self/fd/*; do
  n=\${f##*/}
  case $n in ''|*[!0-9]*|0|1|2) continue;; esac
  [ -L "$f" ] || continue
  case $n in
    [3-9]) eval "exec $n>&-";;
    *) if [ -n "\${BASH_VERSION-}" ]; then eval "exec $n>&-"; else
      echo "vouch: cannot close the inherited file descriptor $n (no bash here)" >&2; exit 125
    fi;;
  esac
done
exec "$@"`;

let shell: string | undefined;

/** bash if the host has it in a system dir, else `/bin/sh`. */
function closerShell(): string {
  shell ??= ["/bin/bash", "/usr/bin/bash"].find(executable) ??
    ["/bin/sh", "/usr/bin/sh"].find(executable) ?? "/bin/sh";
  return shell;
}

/**
 * The argv prefix that runs what follows it with only fds 0, 1 and 2 open.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { closeFdsArgv, CLOSE_FDS_NAME } from "./_close_fds.ts";
 * const a = closeFdsArgv();
 * equal(a[1], "-c");
 * equal(a[3], CLOSE_FDS_NAME);
 * ```
 */
export function closeFdsArgv(): string[] {
  return [closerShell(), "-c", CLOSE_FDS, CLOSE_FDS_NAME];
}
