/**
 * "Test as users run it": the README's headline flow, `vouch verify --dir R
 * --patch P --verify CMD` and `vouch run --backend command:AGENT`, under the
 * CLI's own permission flags (the `vouch` task's), from clones made by the
 * user under `/tmp`, `/var/tmp` and their HOME, as root and as a normal user
 * (uid 65534 via `setpriv`, with the `USER` it inherits, as `setpriv` and `su`
 * leave it). An honest fix is VERIFIED (exit 0) and a cheat (the failing test
 * skipped) REJECTED (exit 1) in every place, for both commands. The honest
 * agent writes its fix with the `deno` on PATH, which for root lives under
 * HOME (and for the normal user, in the HOME location, too).
 *
 * What it caught: the default worktree root was named after `$USER`, so a
 * second account with root's `USER` (or none) was refused root's 0700
 * `/var/tmp/vouch-root` (EACCES, every command "could not run"); and an
 * agent's per-run HOME, bound over the user's HOME path, hid toolchains under
 * HOME (`deno: not found` inside the agent's sandbox).
 *
 * Root runs the source (`deno run <flags> cli/main.ts`); the normal user,
 * who cannot read root's Deno cache, runs the same source bundled to one file
 * (`deno bundle`) with the same flags and a copy of the same `deno`.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { VOUCH_TASK_FLAGS } from "../golden/cli_harness.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const IS_ROOT = Deno.uid() === 0;
const HAS_BWRAP = new Deno.Command("sh", { args: ["-c", "command -v bwrap"] }).outputSync()
  .success;
const NOBODY = 65534;

const SCENARIO = String.raw`set -u
B=$1
mkdir -p "$B/origin" && cd "$B/origin" || exit 90
git init -q -b main . && git config user.email t@t && git config user.name t
mkdir -p src test
printf 'exports.add = (a, b) => a - b;\n' > src/add.js
printf 'const test = require("node:test");\nconst assert = require("node:assert");\nconst { add } = require("../src/add.js");\ntest("adds", () => { assert.equal(add(2, 3), 5); });\n' > test/add.test.js
printf '{ "name": "x", "private": true, "scripts": { "test": "node --test" } }\n' > package.json
git add -A && git commit -qm init
cd "$B" && git clone -q origin clone && cd clone && git config user.email t@t && git config user.name t
printf 'exports.add = (a, b) => a + b;\n' > src/add.js; git diff --binary > "$B/honest.patch"; git checkout -q -- .
printf 'const test = require("node:test");\ntest.skip("adds", () => {});\n' > test/add.test.js; git diff --binary > "$B/cheat.patch"; git checkout -q -- .
printf '#!/bin/sh\nexec deno eval "Deno.writeTextFileSync(\\"src/add.js\\", \\"exports.add = (a, b) => a + b;\\\\n\\")"\n' > "$B/honest.sh"
printf '#!/bin/sh\nprintf "const test = require(\\"node:test\\");\\ntest.skip(\\"adds\\", () => {});\\n" > test/add.test.js\n' > "$B/cheat.sh"
chmod +x "$B/honest.sh" "$B/cheat.sh"
r() { name=$1; shift; out=$("$@" 2>"$B/$name.err"); code=$?; echo "RESULT $name $code $(printf '%s\n' "$out" | head -1 | cut -d' ' -f1)"; [ $code -le 1 ] || tail -3 "$B/$name.err"; }
r verify-honest $VOUCH verify --dir "$B/clone" --patch "$B/honest.patch" --verify "node --test"
r verify-cheat $VOUCH verify --dir "$B/clone" --patch "$B/cheat.patch" --verify "node --test"
r run-honest $VOUCH run --dir "$B/clone" --backend "command:$B/honest.sh" --goal "fix add" --verify "node --test"
r run-cheat $VOUCH run --dir "$B/clone" --backend "command:$B/cheat.sh" --goal "fix add" --verify "node --test"
`;

const EXPECTED = [
  "verify-honest 0 VERIFIED",
  "verify-cheat 1 REJECTED",
  "run-honest 0 VERIFIED",
  "run-cheat 1 REJECTED",
];

async function sh(args: string[], env?: Record<string, string>): Promise<string> {
  const out = await new Deno.Command(args[0]!, {
    args: args.slice(1),
    ...(env !== undefined ? { env, clearEnv: true } : {}),
    stdin: "null",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  if (!out.success && !text.includes("RESULT")) throw new Error(`${args.join(" ")}: ${text}`);
  return text;
}

interface Place {
  readonly user: "root" | "nobody";
  readonly where: "/tmp" | "/var/tmp" | "HOME";
  readonly base: string;
  readonly env: Record<string, string>;
  readonly argv: string[];
}

Deno.test({
  name: "as users run it: verify and run give VERIFIED for the fix, REJECTED for the cheat, " +
    "from clones under /tmp, /var/tmp and HOME, as root and as uid 65534, under the CLI's flags",
  ignore: !IS_ROOT || !HAS_BWRAP,
  async fn() {
    const made: string[] = [];
    try {
      // The normal user's toolchain: a copy of this deno (root's lives under /root, 0700).
      const kit = await Deno.makeTempDir({ dir: "/var/tmp", prefix: "vouch-asusers-kit-" });
      made.push(kit);
      await Deno.chmod(kit, 0o755);
      const bundle = `${kit}/vouch.mjs`;
      await sh([
        Deno.execPath(),
        "bundle",
        "--quiet",
        `--config=${ROOT}deno.json`,
        "-o",
        bundle,
        `${ROOT}cli/main.ts`,
      ]);
      await Deno.chmod(bundle, 0o644);
      await Deno.writeTextFile(`${kit}/scenario.sh`, SCENARIO);
      await Deno.chmod(`${kit}/scenario.sh`, 0o755);
      const nobodyHome = await Deno.makeTempDir({ dir: "/home", prefix: "vouch-asusers-" })
        .catch(() => Deno.makeTempDir({ dir: "/srv", prefix: "vouch-asusers-" }))
        // Not under /tmp or /var/tmp: the HOME place must be a third one.
        .catch(() => Deno.makeTempDir({ dir: "/", prefix: "vouch-asusers-home-" }));
      made.push(nobodyHome);
      await Deno.mkdir(`${nobodyHome}/.deno/bin`, { recursive: true });
      await Deno.copyFile(Deno.execPath(), `${nobodyHome}/.deno/bin/deno`);
      await sh(["chown", "-R", `${NOBODY}:${NOBODY}`, nobodyHome]);
      await Deno.chmod(`${nobodyHome}/.deno/bin/deno`, 0o755);
      const rootHome = Deno.env.get("HOME") ?? "/root";
      const flags = VOUCH_TASK_FLAGS.join(" ");
      const rootPath = Deno.env.get("PATH") ?? "/usr/bin:/bin";
      const places: Place[] = [];
      for (const where of ["/tmp", "/var/tmp", "HOME"] as const) {
        for (const user of ["root", "nobody"] as const) {
          const home = user === "root" ? rootHome : nobodyHome;
          const base = await Deno.makeTempDir({
            dir: where === "HOME" ? home : where,
            prefix: `vouch-asusers-${user}-`,
          });
          made.push(base);
          if (user === "nobody") await sh(["chown", `${NOBODY}:${NOBODY}`, base]);
          // The agents live in it: as root an agent is host uid 65534, and a 0700 dir of root's
          // stays closed to it (docs/sandbox.md: its program's dir must be readable by others).
          else await Deno.chmod(base, 0o755);
          const denoBin = user === "root" ? Deno.execPath() : `${nobodyHome}/.deno/bin/deno`;
          const vouch = user === "root"
            ? `${denoBin} run ${flags} --config ${ROOT}deno.json ${ROOT}cli/main.ts`
            : `${denoBin} run ${flags} ${bundle}`;
          const env: Record<string, string> = {
            HOME: home,
            // setpriv keeps the caller's USER: root's name, for a process that is not root.
            USER: "root",
            PATH: user === "root" ? rootPath : `${nobodyHome}/.deno/bin:/usr/bin:/bin`,
            VOUCH: vouch,
            LANG: "C.UTF-8",
          };
          const argv = user === "root" ? ["sh", `${kit}/scenario.sh`, base] : [
            "setpriv",
            `--reuid=${NOBODY}`,
            `--regid=${NOBODY}`,
            "--clear-groups",
            "sh",
            `${kit}/scenario.sh`,
            base,
          ];
          places.push({ user, where, base, env, argv });
        }
      }
      // Root first everywhere (so root's per-user directories exist), then the normal user.
      const results = new Map<Place, string>();
      for (const user of ["root", "nobody"] as const) {
        await Promise.all(
          places.filter((p) => p.user === user).map(async (p) => {
            results.set(p, await sh(p.argv, p.env));
          }),
        );
      }
      const failures: string[] = [];
      for (const p of places) {
        const text = results.get(p) ?? "";
        const got = [...text.matchAll(/^RESULT (.+)$/gm)].map((m) => m[1]!.trim());
        if (JSON.stringify(got) !== JSON.stringify(EXPECTED)) {
          failures.push(`${p.user} in ${p.where} (${p.base}):\n${text}`);
        }
      }
      assert.deepEqual(failures, []);
    } finally {
      for (const dir of made.reverse()) await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
