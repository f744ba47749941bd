/**
 * The toolchain mount planner (`planToolchainRoots`): what a PATH entry
 * exposes. Examples of real layouts, and a property test over generated
 * PATHs, programs, HOMEs, checkouts and secrets: no mount is HOME or above it,
 * a HOME data or secret dir or contains one, a HOME-level dir other than a
 * toolchain home or venv, a private dir guessed as an install root, inside or
 * around vouch's keys and state, around the checkout, worktree or `.git`;
 * and every PATH dir (and program dir) that may be shown is.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { basename, dirname } from "node:path";
import {
  HOME_PRIVATE_DIRS,
  isSystem,
  type PlanFacts,
  planToolchainRoots,
  type ToolchainPlanInput,
} from "../../../adapters/sandbox/_toolchains.ts";
import { isToolchainSecret } from "../../../adapters/sandbox/_toolchain_secrets.ts";

const within = (p: string, d: string) => p === d || d === "/" || p.startsWith(d + "/");
const OPEN: PlanFacts = { isPrivate: () => false, isVenv: () => false, hasRustup: () => false };
const HOME = "/home/ann";
const STATE = `${HOME}/.local/state/vouch`;

function plan(input: Partial<ToolchainPlanInput>, facts: Partial<PlanFacts> = {}): string[] {
  return [
    ...planToolchainRoots({
      home: HOME,
      forbidden: [STATE],
      notContaining: [],
      pathDirs: [],
      programs: [],
      ...input,
    }, { ...OPEN, ...facts }).roots,
  ];
}

Deno.test("~/.local/bin binds itself and the installs its links lead to, never ~/.local", () => {
  const roots = plan({
    pathDirs: [{
      dir: `${HOME}/.local/bin`,
      targets: [
        `${HOME}/.local/share/pipx/venvs/black/bin/black`,
        `${HOME}/.local/bin/pip-user-script`,
      ],
    }],
  });
  assert.deepEqual(roots, [`${HOME}/.local/bin`, `${HOME}/.local/share/pipx/venvs/black`]);
});

Deno.test("a /X/bin entry beside the checkout /X/proj binds /X/bin, not /X", () => {
  const roots = plan({
    notContaining: ["/X/proj", "/X/proj/.git", "/var/tmp/w/tree"],
    pathDirs: [{ dir: "/X/bin", targets: ["/X/bin/deno"] }],
  });
  assert.deepEqual(roots, ["/X/bin"]);
  // Without a checkout there, the install root comes along (lib/, share/), but never a
  // top-level dir.
  const sdk = { dir: "/X/sdk/bin", targets: ["/X/sdk/bin/deno"] };
  assert.deepEqual(plan({ pathDirs: [sdk] }), ["/X/sdk"]);
  assert.deepEqual(plan({ pathDirs: [{ dir: "/X/bin", targets: ["/X/bin/deno"] }] }), ["/X/bin"]);
  assert.deepEqual(plan({ pathDirs: [sdk], notContaining: ["/X/sdk/proj"] }), ["/X/sdk/bin"]);
  // ...unless it is private (a mktemp -d holding other things).
  assert.deepEqual(
    plan({ pathDirs: [{ dir: "/tmp/x/bin", targets: ["/tmp/x/bin/deno"] }] }, {
      isPrivate: (d) => d === "/tmp/x",
    }),
    ["/tmp/x/bin"],
  );
});

Deno.test("real layouts: nvm, ~/.deno, cargo + rustup, pyenv, a venv, npx's node_modules, /opt-like", () => {
  const nvm = `${HOME}/.nvm/versions/node/v22.1.0`;
  const roots = planToolchainRoots({
    home: HOME,
    forbidden: [STATE],
    notContaining: ["/work/proj"],
    pathDirs: [
      {
        dir: `${nvm}/bin`,
        targets: [`${nvm}/bin/node`, `${nvm}/lib/node_modules/npm/bin/npm-cli.js`],
      },
      { dir: `${HOME}/.deno/bin`, targets: [`${HOME}/.deno/bin/deno`] },
      {
        dir: `${HOME}/.cargo/bin`,
        targets: [`${HOME}/.cargo/bin/cargo`, `${HOME}/.cargo/bin/rustup`],
      },
      { dir: `${HOME}/.pyenv/shims`, targets: [`${HOME}/.pyenv/shims/python`] },
      { dir: `${HOME}/.venv/bin`, targets: [`${HOME}/.venv/bin/pytest`] },
      { dir: "/work/proj/.venv/bin", targets: ["/work/proj/.venv/bin/python"] },
      { dir: "/srv2/node/bin", targets: ["/srv2/node/bin/node"] },
      {
        dir: "/usr/local/bin",
        targets: [`${HOME}/.npm/_npx/abc/node_modules/@deno/linux-x64/deno`],
      },
      { dir: "/usr/bin", targets: [] },
    ],
    programs: [],
    rustupHome: () => `${HOME}/.rustup`,
  }, {
    ...OPEN,
    isVenv: (d) => d === `${HOME}/.venv` || d === "/work/proj/.venv",
    hasRustup: (d) => d === `${HOME}/.cargo`,
  });
  assert.deepEqual(
    [...roots.roots],
    [
      `${HOME}/.cargo`,
      `${HOME}/.deno`,
      `${HOME}/.npm/_npx/abc/node_modules`,
      nvm,
      `${HOME}/.pyenv`,
      `${HOME}/.rustup`,
      `${HOME}/.venv`,
      "/srv2/node",
      "/work/proj/.venv",
    ].sort(),
  );
  assert.deepEqual(roots.env, { RUSTUP_HOME: `${HOME}/.rustup`, CARGO_HOME: `${HOME}/.cargo` });
});

Deno.test("HOME, its ancestors, its secret dirs, vouch's state and shared dirs are never bound", () => {
  assert.deepEqual(
    plan({
      pathDirs: [
        { dir: HOME, targets: [`${HOME}/tool`] },
        { dir: "/home", targets: [] },
        { dir: `${HOME}/bin`, targets: [`${HOME}/bin/x`] },
        { dir: `${HOME}/.local`, targets: [] },
        { dir: `${HOME}/.local/state/vouch/bin`, targets: [] },
        { dir: `${HOME}/.config/tool/bin`, targets: [] },
        { dir: `${HOME}/projects/bin`, targets: [`${HOME}/projects/bin/x`] },
        { dir: `${HOME}/.chain/bin`, targets: [`${HOME}/.chain/bin/x`] },
        { dir: "/tmp/bin", targets: ["/tmp/bin/x"] },
        { dir: "/var/tmp/bin", targets: ["/var/tmp/bin/x"] },
      ],
    }),
    // ~/bin alone (its parent is HOME), ~/projects/bin alone (a dir of the user's, not an
    // app's dot-dir); /tmp/bin, /var/tmp/bin alone (their parents are shared).
    [`${HOME}/.chain`, `${HOME}/bin`, `${HOME}/projects/bin`, "/tmp/bin", "/var/tmp/bin"],
  );
  // An install root holding vouch's keys is not mounted: the program's dir alone is.
  assert.deepEqual(
    plan({
      forbidden: [`${HOME}/.chain/state/vouch/keys`],
      pathDirs: [{ dir: `${HOME}/.chain/bin`, targets: [`${HOME}/.chain/bin/x`] }],
    }),
    [`${HOME}/.chain/bin`],
  );
});

Deno.test("a program in HOME or a HOME-level dir of the user's own: the file alone (rt2 finding 3)", () => {
  const p = planToolchainRoots({
    home: HOME,
    forbidden: [STATE],
    notContaining: [`${HOME}/proj`],
    pathDirs: [{
      dir: `${HOME}/bin`,
      targets: [
        `${HOME}/notes/mytool.sh`,
        `${HOME}/tool.sh`,
        `${HOME}/bin/own`,
        `${HOME}/proj/tool.sh`,
        `${HOME}/.ssh/x`,
        `${HOME}/venv/bin/black`,
      ],
    }],
    programs: [`${HOME}/dl/deno`],
  }, { ...OPEN, isVenv: (d) => d === `${HOME}/venv` });
  // ~/bin (on PATH) and the venv (an install) are roots; ~/notes, ~/dl and HOME never are.
  assert.deepEqual(p.roots, [`${HOME}/bin`, `${HOME}/venv`]);
  // Never a file in the checkout, in a secret dir, or already shown by a root.
  assert.deepEqual(p.files, [`${HOME}/dl/deno`, `${HOME}/notes/mytool.sh`, `${HOME}/tool.sh`]);
  // Deeper dirs of the user's own are unchanged (their dir, not HOME-level).
  assert.deepEqual(
    plan({ pathDirs: [{ dir: "/opt2/bin", targets: [`${HOME}/code/tools/t.sh`] }] }),
    [`${HOME}/code/tools`, "/opt2/bin"],
  );
});

Deno.test("toolchain secrets: credentials* always, a .cargo home's config, maven, gradle", () => {
  const cargo = `${HOME}/.cargo`;
  for (const n of ["credentials", "credentials.toml", "credentials.json", ".credentials.json"]) {
    assert.ok(isToolchainSecret(cargo, n), n);
    assert.ok(isToolchainSecret("/opt2/node", n), n);
  }
  assert.ok(isToolchainSecret(cargo, "config.toml"));
  assert.ok(isToolchainSecret(cargo, "config"));
  // A CARGO_HOME of another name holding bin/cargo.
  assert.ok(isToolchainSecret("/opt2/cargo-home", "config.toml", true));
  assert.ok(!isToolchainSecret("/opt2/node", "config.toml"));
  assert.ok(isToolchainSecret(`${HOME}/.m2`, "settings.xml"));
  assert.ok(isToolchainSecret(`${HOME}/.gradle`, "gradle.properties"));
  assert.ok(isToolchainSecret(`${HOME}/venv`, "pip.conf"));
  assert.ok(!isToolchainSecret(cargo, "bin"));
  assert.ok(!isToolchainSecret(`${HOME}/.rustup`, "settings.toml"));
});

// --- property test ---------------------------------------------------------------------------

const SEGMENTS = [
  "a",
  "b",
  "bin",
  "sbin",
  "shims",
  ".local",
  "share",
  "state",
  "node_modules",
  ".cargo",
  "proj",
  ".git",
  "lib",
  "vouch",
  ".venv",
  ".ssh",
  ".config",
  "keyrings",
];
const TOPS = [
  "/home/ann",
  "/home/bob",
  "/root",
  "/X",
  "/tmp",
  "/var/tmp",
  "/opt2",
  "/usr",
  "/usr/local",
  "/",
];

const pathArb = fc.tuple(
  fc.constantFrom(...TOPS),
  fc.array(fc.constantFrom(...SEGMENTS), { maxLength: 5 }),
)
  .map(([top, segs]) =>
    (top === "/" ? "" : top) +
    (segs.length === 0 && top === "/" ? "/" : segs.map((s) => "/" + s).join(""))
  );

const inputArb = fc.record({
  home: fc.constantFrom("/home/ann", "/root"),
  forbidden: fc.array(pathArb, { maxLength: 3 }),
  notContaining: fc.array(pathArb, { maxLength: 4 }),
  pathDirs: fc.array(
    fc.record({ dir: pathArb, targets: fc.array(pathArb, { maxLength: 4 }) }),
    { maxLength: 6 },
  ),
  programs: fc.array(pathArb, { maxLength: 2 }),
  privateDirs: fc.array(pathArb, { maxLength: 4 }),
  venvs: fc.array(pathArb, { maxLength: 2 }),
});

const homeBaseOf = (dir: string, home: string) =>
  within(dir, home) && home !== "/"
    ? home
    : within(dir, "/root")
    ? "/root"
    : /^\/home\/[^/]+/.exec(dir)?.[0] ?? null;

Deno.test("property: no mount exposes HOME, its secrets, vouch's state or the repository; what may be shown is", () => {
  fc.assert(
    fc.property(inputArb, (g) => {
      const facts: PlanFacts = {
        isPrivate: (d) => g.privateDirs.includes(d),
        isVenv: (d) => g.venvs.includes(d),
        hasRustup: () => false,
      };
      const pathDirs = g.pathDirs.map((p) => ({
        dir: p.dir,
        targets: p.targets.map((t) => `${p.dir}/${basename(t)}`).concat(p.targets),
      }));
      const input = {
        home: g.home,
        forbidden: g.forbidden,
        notContaining: g.notContaining,
        pathDirs,
        programs: g.programs,
      };
      const { roots, files } = planToolchainRoots(input, facts);
      const asked = new Set([
        ...pathDirs.map((p) => p.dir),
        ...pathDirs.flatMap((p) => p.targets.map(dirname)),
        ...g.programs.map(dirname),
      ]);
      // HOME-level dirs may be roots only when on PATH themselves (a program's dir there never).
      const onPath = new Set(pathDirs.map((p) => p.dir));
      const programs = new Set([...pathDirs.flatMap((p) => p.targets), ...g.programs]);
      const depInstall = (r: string) => basename(r) === "node_modules" || g.venvs.includes(r);
      for (const r of roots) {
        assert.ok(r !== "/" && !within(g.home, r), `HOME or above: ${r}`);
        assert.ok(!isSystem(r), `system dir: ${r}`);
        for (const f of g.forbidden) {
          assert.ok(!within(r, f) && !within(f, r), `state ${f} via ${r}`);
        }
        for (const p of g.notContaining) {
          assert.ok(!within(p, r), `${r} contains ${p}`);
          if (within(r, p)) assert.ok(depInstall(r), `${r} inside ${p}`);
        }
        const base = homeBaseOf(r, g.home);
        if (base !== null) {
          assert.notEqual(r, base);
          for (const s of HOME_PRIVATE_DIRS) {
            assert.ok(
              !within(r, `${base}/${s}`) && !within(`${base}/${s}`, r),
              `${r} vs ${base}/${s}`,
            );
          }
          for (const s of [".local", ".local/share"]) assert.notEqual(r, `${base}/${s}`);
          if (dirname(r) === base) {
            assert.ok(
              onPath.has(r) || basename(r).startsWith(".") || depInstall(r),
              `HOME-level ${r}`,
            );
          }
        } else if (!asked.has(r)) {
          assert.ok(!g.privateDirs.includes(r), `private install root ${r}`);
        }
        assert.ok(!roots.some((o) => o !== r && within(r, o)), `${r} inside another root`);
      }
      for (const f of files) {
        assert.ok(programs.has(f), `file ${f} not a program`);
        assert.ok(!roots.some((r) => within(f, r)), `file ${f} inside a root`);
        const base = homeBaseOf(f, g.home);
        assert.ok(base !== null, `file ${f} outside HOME`);
        for (const s of HOME_PRIVATE_DIRS) assert.ok(!within(f, `${base}/${s}`), `${f} in ${s}`);
        for (const x of g.forbidden) {
          assert.ok(!within(f, x) && !within(x, f), `state ${x} via ${f}`);
        }
        for (const p of g.notContaining) assert.ok(!within(f, p) && !within(p, f), `${f} vs ${p}`);
      }
      // Liveness: a PATH dir outside every HOME that is clear of the state, the repository and
      // the system dirs is shown.
      for (const { dir } of pathDirs) {
        const clear = !isSystem(dir) && homeBaseOf(dir, g.home) === null &&
          dir.split("/").length >= 3 && !["/var/tmp"].includes(dir) &&
          !g.forbidden.some((f) => within(dir, f) || within(f, dir)) &&
          !g.notContaining.some((p) => within(p, dir) || within(dir, p));
        if (clear) assert.ok(roots.some((r) => within(dir, r)), `${dir} not shown: ${roots}`);
      }
    }),
    { numRuns: 3000 },
  );
});
