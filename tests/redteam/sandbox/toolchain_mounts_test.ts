/**
 * What a PATH entry exposes to a sandboxed check, through the real CLI under
 * its own flags and real bwrap (red-team findings C1-C3, A10):
 *
 * - a normal user (made with `useradd -m`) whose PATH has `~/.local/bin` (as
 *   Debian's default `~/.profile` adds once it exists) and a `deno` in
 *   `~/.deno/bin`: a check passes, cannot read `~/.local/share/secret`, and
 *   vouch's state dir is not there (before: `bwrap: Can't mkdir
 *   ~/.local/state/vouch: Read-only file system`, every check REJECTED);
 * - a normal user with `~/bin/mytool -> ~/notes/mytool.sh` and `~/.cargo/bin` on PATH (rt2
 *   finding 3): the tool and cargo run, `~/notes/private.txt` is not there (before: all of
 *   `~/notes` was mounted), `~/.cargo/config.toml` (a `[registry] token`), `credentials.toml`
 *   and `credentials` are empty (before: config.toml readable); declared with `--sandbox-ro`,
 *   config.toml is shown;
 * - a `/X/bin` PATH entry with the checkout at `/X/proj`: the checkout's
 *   untracked files stay invisible (before: all of `/X` was mounted), and a
 *   0700 checkout there verifies (before: bwrap failed on its `.git`);
 * - bwrap that fails to set the sandbox up: COULD NOT RUN (exit 5) naming
 *   bwrap's message, not REJECTED; a check printing the same line is still
 *   REJECTED (exit 1).
 *
 * Root only (it makes a user and dirs under `/`); skipped without bwrap.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { VOUCH_TASK_FLAGS } from "../../golden/cli_harness.ts";
import { isRoot, skipReason } from "./_cli.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const ignore = skipReason !== null || !isRoot;
const BWRAP = new Deno.Command("sh", { args: ["-c", "command -v bwrap"] }).outputSync();
const REAL_BWRAP = new TextDecoder().decode(BWRAP.stdout).trim();

interface Out {
  readonly code: number;
  readonly text: string;
}

async function run(argv: string[], env: Record<string, string>, cwd = "/"): Promise<Out> {
  const out = await new Deno.Command(argv[0]!, {
    args: argv.slice(1),
    env,
    clearEnv: true,
    cwd,
    stdin: "null",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  return { code: out.code, text };
}

async function ok(
  argv: string[],
  env: Record<string, string> = { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" },
) {
  const r = await run(argv, env);
  if (r.code !== 0) throw new Error(`${argv.join(" ")}: ${r.text}`);
  return r.text;
}

/** Deletes `user` and its HOME, retrying while a process of its own is still ending. */
async function deleteUser(user: string): Promise<void> {
  const env = { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" };
  for (let i = 0; i < 20; i++) {
    await run(["userdel", "-r", user], env);
    if ((await run(["getent", "passwd", user], env)).code !== 0) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`could not delete the test user ${user}`);
}

/** A one-commit repository at `dir` (made here) and a patch of it in `patch`. */
async function repoWithPatch(dir: string, patch: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  const script =
    `set -e; cd "${dir}"; git init -q; git config user.email t@t; git config user.name t
echo a > f; git add f; git commit -qm init
printf 'diff --git a/f b/f\\n--- a/f\\n+++ b/f\\n@@ -1 +1 @@\\n-a\\n+b\\n' > "${patch}"`;
  await ok(["sh", "-c", script]);
}

/** `vouch verify` from the source, as root, with `PATH` first in the path. */
function verifyAsRoot(dir: string, patch: string, check: string, path: string, state: string) {
  return run([
    Deno.execPath(),
    "run",
    ...VOUCH_TASK_FLAGS,
    `--config=${ROOT}deno.json`,
    `${ROOT}cli/main.ts`,
    "verify",
    "--dir",
    dir,
    "--patch",
    patch,
    "--no-baseline",
    "--verify",
    check,
  ], {
    PATH: `${path}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
    HOME: Deno.env.get("HOME") ?? "/root",
    XDG_STATE_HOME: `${state}/state`,
    VOUCH_KEY_FILE: `${state}/key`,
    VOUCH_WORKTREE_ROOT: `${state}/worktrees`,
    NO_COLOR: "1",
  }, dir);
}

Deno.test({
  name: "a normal user with ~/.local/bin on PATH: the check passes, ~/.local/share and vouch's " +
    "state stay invisible",
  ignore,
  async fn() {
    const user = `fixg${Math.floor(Math.random() * 1e6)}`;
    const kit = await Deno.makeTempDir({ dir: "/var/tmp", prefix: "vouch-tcm-kit-" });
    await ok(["useradd", "-m", user]);
    try {
      await Deno.chmod(kit, 0o755);
      const bundle = `${kit}/vouch.mjs`;
      await ok([
        Deno.execPath(),
        "bundle",
        "--quiet",
        `--config=${ROOT}deno.json`,
        "-o",
        bundle,
        `${ROOT}cli/main.ts`,
      ]);
      await Deno.chmod(bundle, 0o644);
      const home = (await ok(["sh", "-c", `getent passwd ${user} | cut -d: -f6`])).trim();
      const uid = (await ok(["id", "-u", user])).trim();
      const gid = (await ok(["id", "-g", user])).trim();
      const as = ["setpriv", `--reuid=${uid}`, `--regid=${gid}`, "--init-groups"];
      const env = {
        HOME: home,
        USER: user,
        LOGNAME: user,
        LANG: "C.UTF-8",
        PATH: `${home}/.local/bin:${home}/.deno/bin:/usr/local/bin:/usr/bin:/bin`,
      };
      // The user's own layout: a deno in ~/.deno/bin, ~/.local/bin (pipx, uv), a secret in
      // ~/.local/share, vouch's state dir from an earlier run.
      const setup = `set -e; cd "${home}"
mkdir -p .deno/bin .local/bin .local/share .local/state/vouch
echo TOPSECRET-KEYRING > .local/share/secret
git config --global user.email t@t; git config --global user.name t`;
      await ok([...as, "sh", "-c", setup], env);
      await Deno.copyFile(Deno.execPath(), `${home}/.deno/bin/deno`);
      await ok(["chown", `${uid}:${gid}`, `${home}/.deno/bin/deno`]);
      await Deno.chmod(`${home}/.deno/bin/deno`, 0o755);
      await ok([
        ...as,
        "sh",
        "-c",
        `set -e; cd "${home}"; mkdir proj; cd proj; git init -q
echo a > f; git add f; git commit -qm init
printf 'diff --git a/f b/f\\n--- a/f\\n+++ b/f\\n@@ -1 +1 @@\\n-a\\n+b\\n' > "${home}/p.patch"`,
      ], env);
      const check = `cat ${home}/.local/share/secret; ` +
        `if test -e ${home}/.local/share/secret || test -e ${home}/.local/state/vouch; ` +
        `then echo EXPOSED; exit 1; fi; test -d ${home}/.local/bin && echo CLEAN`;
      const verify = (c: string) =>
        run(
          [
            ...as,
            `${home}/.deno/bin/deno`,
            "run",
            ...VOUCH_TASK_FLAGS,
            bundle,
            "verify",
            "--dir",
            `${home}/proj`,
            "--patch",
            `${home}/p.patch`,
            "--verify",
            c,
          ],
          env,
          "/",
        );
      const first = await verify("true");
      assert.equal(first.code, 0, first.text);
      const r = await verify(check);
      assert.doesNotMatch(r.text, /TOPSECRET|EXPOSED/);
      assert.equal(r.code, 0, r.text);
      assert.match(r.text, /^VERIFIED/m);
    } finally {
      await deleteUser(user);
      await Deno.remove(kit, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name: "a normal user's ~/bin link into ~/notes binds the program file alone; ~/.cargo's " +
    "config.toml and credentials stay hidden (rt2 finding 3)",
  ignore,
  async fn() {
    const user = `fixh${Math.floor(Math.random() * 1e6)}`;
    const kit = await Deno.makeTempDir({ dir: "/var/tmp", prefix: "vouch-tcm-kit-" });
    await ok(["useradd", "-m", user]);
    try {
      await Deno.chmod(kit, 0o755);
      const bundle = `${kit}/vouch.mjs`;
      await ok([
        Deno.execPath(),
        "bundle",
        "--quiet",
        `--config=${ROOT}deno.json`,
        "-o",
        bundle,
        `${ROOT}cli/main.ts`,
      ]);
      await Deno.mkdir(`${kit}/bin`);
      await Deno.copyFile(Deno.execPath(), `${kit}/bin/deno`);
      await ok(["chmod", "-R", "a+rX", kit]);
      const home = (await ok(["sh", "-c", `getent passwd ${user} | cut -d: -f6`])).trim();
      const uid = (await ok(["id", "-u", user])).trim();
      const gid = (await ok(["id", "-g", user])).trim();
      const as = ["setpriv", `--reuid=${uid}`, `--regid=${gid}`, "--init-groups"];
      const env = {
        HOME: home,
        USER: user,
        LOGNAME: user,
        LANG: "C.UTF-8",
        PATH: `${home}/bin:${home}/.cargo/bin:${kit}/bin:/usr/local/bin:/usr/bin:/bin`,
      };
      const setup = `set -e; cd "${home}"; mkdir -p bin notes .cargo/bin proj
echo NOTES-SECRET-42 > notes/private.txt
printf '#!/bin/sh\\necho tool\\n' > notes/mytool.sh; chmod +x notes/mytool.sh
ln -s "${home}/notes/mytool.sh" bin/mytool
printf '#!/bin/sh\\necho cargo\\n' > .cargo/bin/cargo; chmod +x .cargo/bin/cargo
printf '[registry]\\ntoken = "CARGO-TOKEN-77"\\n' > .cargo/config.toml
printf '[registry]\\ntoken = "CARGO-CRED-78"\\n' > .cargo/credentials.toml
printf 'CARGO-CRED-79\\n' > .cargo/credentials
chmod 644 .cargo/config.toml .cargo/credentials.toml .cargo/credentials
git config --global user.email t@t; git config --global user.name t
cd proj; git init -q; echo a > f; git add f; git commit -qm init
printf 'diff --git a/f b/f\\n--- a/f\\n+++ b/f\\n@@ -1 +1 @@\\n-a\\n+b\\n' > "${home}/p.patch"`;
      await ok([...as, "sh", "-c", setup], env);
      // The programs run (the link's target file is there); nothing else of ~/notes, nor a
      // secret of ~/.cargo, is readable (grep inside: the output redaction is not the guard).
      const check = `test "$(mytool)" = tool || { echo NO-TOOL; exit 3; }
test "$(cargo)" = cargo || { echo NO-CARGO; exit 3; }
for f in ${home}/notes/private.txt ${home}/.cargo/config.toml ${home}/.cargo/credentials.toml ${home}/.cargo/credentials; do
  if grep -q 'SECRET\\|TOKEN\\|CRED' "$f" 2>/dev/null; then echo "EXPOSED $f"; exit 1; fi
done
ls ${home}/notes; echo CLEAN`;
      const verify = (c: string, ...more: string[]) =>
        run(
          [
            ...as,
            `${kit}/bin/deno`,
            "run",
            ...VOUCH_TASK_FLAGS,
            bundle,
            "verify",
            "--dir",
            `${home}/proj`,
            "--patch",
            `${home}/p.patch`,
            "--no-baseline",
            ...more,
            "--verify",
            c,
          ],
          env,
          "/",
        );
      const r = await verify(check);
      assert.doesNotMatch(r.text, /EXPOSED|NO-TOOL|NO-CARGO|^private\.txt$/m);
      assert.equal(r.code, 0, r.text);
      assert.match(r.text, /^VERIFIED/m);
      // Declared, cargo's config is shown (bound over the mask).
      const declared = await verify(
        `grep -q CARGO-TOKEN-77 ${home}/.cargo/config.toml`,
        "--sandbox-ro",
        `${home}/.cargo/config.toml`,
      );
      assert.equal(declared.code, 0, declared.text);
    } finally {
      await deleteUser(user);
      await Deno.remove(kit, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name: "a /X/bin PATH entry beside the checkout /X/proj: its untracked files stay invisible, " +
    "and a 0700 checkout there verifies",
  ignore,
  async fn() {
    const x = await Deno.makeTempDir({ dir: "/var/tmp", prefix: "vouch-tcm-x-" });
    const state = await Deno.makeTempDir({ prefix: "vouch-tcm-state-" });
    try {
      await Deno.chmod(x, 0o755);
      await Deno.mkdir(`${x}/bin`);
      await repoWithPatch(`${x}/proj`, `${x}/p.patch`);
      await Deno.writeTextFile(`${x}/proj/untracked-notes.txt`, "private notes\n");
      const open = await verifyAsRoot(
        `${x}/proj`,
        `${x}/p.patch`,
        `cat ${x}/proj/untracked-notes.txt; if test -e ${x}/proj/untracked-notes.txt; then exit 1; fi`,
        `${x}/bin`,
        state,
      );
      assert.doesNotMatch(open.text, /private notes/);
      assert.equal(open.code, 0, open.text);
      // A 0700 checkout (mktemp -d) in the same place.
      await Deno.mkdir(`${x}/closed`, { mode: 0o700 });
      await repoWithPatch(`${x}/closed/proj`, `${x}/q.patch`);
      await Deno.chmod(`${x}/closed`, 0o700);
      const closed = await verifyAsRoot(
        `${x}/closed/proj`,
        `${x}/q.patch`,
        "true",
        `${x}/bin`,
        state,
      );
      assert.equal(closed.code, 0, closed.text);
    } finally {
      await Deno.remove(x, { recursive: true }).catch(() => {});
      await Deno.remove(state, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name: "bwrap failing to set the sandbox up: COULD NOT RUN (exit 5) naming bwrap's message; a " +
    "check printing that message is still REJECTED",
  ignore: ignore || REAL_BWRAP === "",
  async fn() {
    const x = await Deno.makeTempDir({ dir: "/var/tmp", prefix: "vouch-tcm-bw-" });
    const state = await Deno.makeTempDir({ prefix: "vouch-tcm-state-" });
    try {
      await Deno.chmod(x, 0o755);
      await Deno.mkdir(`${x}/bin`);
      // A real bwrap that passes vouch's probe (a `true` in vouch-probe-*) and fails to set up
      // every other sandbox: a source path that does not exist.
      await Deno.writeTextFile(
        `${x}/bin/bwrap`,
        `#!/bin/sh
case "$*" in --version*|*vouch-probe-*) exec ${REAL_BWRAP} "$@";; esac
exec ${REAL_BWRAP} --ro-bind /nonexistent-vouch-setup /nonexistent-vouch-setup "$@"
`,
      );
      await Deno.chmod(`${x}/bin/bwrap`, 0o755);
      await repoWithPatch(`${x}/proj`, `${x}/p.patch`);
      const failed = await verifyAsRoot(`${x}/proj`, `${x}/p.patch`, "true", `${x}/bin`, state);
      assert.equal(failed.code, 5, failed.text);
      assert.match(failed.text, /sandbox could not be set up \(bwrap: .*nonexistent-vouch-setup/);
      assert.doesNotMatch(failed.text, /^REJECTED/m);
      // The same words from a check that ran: its own failure.
      const forged = await verifyAsRoot(
        `${x}/proj`,
        `${x}/p.patch`,
        `echo "bwrap: Can't mkdir /x: Read-only file system" >&2; exit 1`,
        "/nonexistent-vouch-path",
        state,
      );
      assert.equal(forged.code, 1, forged.text);
      assert.match(forged.text, /^REJECTED/m);
    } finally {
      await Deno.remove(x, { recursive: true }).catch(() => {});
      await Deno.remove(state, { recursive: true }).catch(() => {});
    }
  },
});
