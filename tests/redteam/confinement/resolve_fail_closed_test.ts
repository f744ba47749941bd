// Red team: path resolution fails closed. A model's run_command can build a
// link chain whose resolution passes PATH_MAX (realpath says ENAMETOOLONG
// while the kernel still follows it out of the tree) or a chain of links that
// leads nowhere; `resolveInside` once took either failure for "not there yet,
// walk up" and accepted, and under Node (or `deno run -A`) the model wrote a
// host file and read the key through it. Asked under the CLI's own Deno flags
// and under Node 20 (the harness bundled), every such path is refused and no
// byte lands outside.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { NODE, VOUCH_TASK_FLAGS } from "../../golden/cli_harness.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const HARNESS = fileURLToPath(new URL("./_resolve_harness.ts", import.meta.url));
const SECRET = "vouch-hmac-key-0123456789abcdef\n";

/** 24 nested dirs of 250-char names; l1 -> the 12th's m -> the 24th's up -> ../ x25 + out. */
const CHAIN = `
n=$(printf 'D%.0s' $(seq 1 250))
half=$n; i=1; while [ $i -lt 12 ]; do half="$half/$n"; i=$((i+1)); done
up=""; i=0; while [ $i -lt 25 ]; do up="$up../"; i=$((i+1)); done
mkdir -p "$half" && ln -s "$half" k && mkdir -p "k/$half" || exit 1
ln -s "$half/up" k/m && ln -s "\${up}out" "k/$half/up" && ln -s "$half/m" l1 && rm k
`;

function arena(): { root: string; wt: string; outside: string } {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "vouch-resolve-" }));
  const wt = join(root, "wt");
  const outside = join(root, "out");
  mkdirSync(wt);
  mkdirSync(outside);
  writeFileSync(join(outside, "key.txt"), SECRET);
  execFileSync("sh", ["-c", CHAIN], { cwd: wt });
  // The kernel follows the chain out of the tree...
  assert.equal(readFileSync(join(wt, "l1/key.txt"), "utf8"), SECRET);
  // ...while realpath gives up.
  assert.throws(() => Deno.realPathSync(join(wt, "l1")));
  // A chain that leads nowhere (yet): d1 -> d2 -> ../out/made-later.
  symlinkSync("../out/made-later", join(wt, "d2"));
  symlinkSync("d2", join(wt, "d1"));
  return { root, wt, outside };
}

function check(stdout: string, outside: string) {
  const out = JSON.parse(stdout) as Record<string, unknown>;
  for (const [what, answer] of Object.entries(out)) {
    assert.equal(answer, "refused", `${what}: ${JSON.stringify(answer)}`);
  }
  assert.equal(Object.keys(out).length, 9);
  assert.deepEqual(readdirSync(outside), ["key.txt"]);
  assert.equal(readFileSync(join(outside, "key.txt"), "utf8"), SECRET);
}

Deno.test("red team: a link chain past PATH_MAX and a dangling chain are refused (the CLI's Deno flags)", () => {
  const a = arena();
  try {
    const flags = VOUCH_TASK_FLAGS;
    const r = spawnSync(Deno.execPath(), ["run", ...flags, HARNESS, a.wt], {
      cwd: ROOT,
      encoding: "utf8",
    });
    assert.equal(r.status, 0, r.stderr);
    check(r.stdout, a.outside);
  } finally {
    Deno.removeSync(a.root, { recursive: true });
  }
});

Deno.test({
  name: "red team: a link chain past PATH_MAX and a dangling chain are refused (Node 20)",
  ignore: NODE === null,
  fn: () => {
    const a = arena();
    try {
      const bundle = join(a.root, "harness.mjs");
      const b = spawnSync(Deno.execPath(), [
        "bundle",
        "--quiet",
        `--config=${ROOT}deno.json`,
        "-o",
        bundle,
        HARNESS,
      ], { encoding: "utf8" });
      assert.equal(b.status, 0, b.stderr);
      const r = spawnSync(NODE!, [bundle, a.wt], { encoding: "utf8" });
      assert.equal(r.status, 0, r.stderr);
      check(r.stdout, a.outside);
    } finally {
      Deno.removeSync(a.root, { recursive: true });
    }
  },
});
