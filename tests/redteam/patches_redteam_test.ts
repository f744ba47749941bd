/**
 * Hostile patches (tests/redteam/patches/): each must be rejected with exactly
 * the reason codes its manifest entry lists, by the one judgement `run`,
 * `verify`, `scope` and `evaluate` share (`judgePatch`, with verify's default
 * forbidden paths and policy), in-process and through the `vouch scope` CLI. The real_*.diff fixtures come from real git
 * (patches/make_real.sh); the rest are handcrafted where git refuses to
 * produce them.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { judgePatch, type PatchRules, type ScopeRules } from "../../kernel/scope/mod.ts";
import { DEFAULT_FORBID } from "../../adapters/driver/run_in_repo.ts";
import { runCli } from "../../cli/main.ts";

/** The rules `vouch verify` and `vouch scope` build from the same flags. */
function verifyRules(rules: ScopeRules): PatchRules {
  const allow = rules.allow ?? [];
  return {
    ...rules,
    forbid: [...DEFAULT_FORBID.filter((f) => !allow.includes(f)), ...(rules.forbid ?? [])],
  };
}

interface Expected {
  readonly codes: readonly string[];
  readonly rules?: ScopeRules;
  readonly parserCode?: string;
}

const DIR = new URL("./patches/", import.meta.url);
const manifest: Record<string, Expected> = JSON.parse(
  await Deno.readTextFile(new URL("expected.json", DIR)),
);
const files = [...Deno.readDirSync(DIR)].map((e) => e.name).filter((n) => n.endsWith(".diff"))
  .sort();

Deno.test("every fixture has a manifest entry and vice versa (at least 30 hostile patches)", () => {
  assert.deepEqual(files, Object.keys(manifest).sort());
  assert.ok(files.length >= 30, `only ${files.length} fixtures`);
});

for (const name of files) {
  Deno.test(`red-team patch ${name} is rejected with ${manifest[name]?.codes.join(", ")}`, () => {
    const expected = manifest[name]!;
    const bytes = Deno.readFileSync(new URL(name, DIR));
    const report = judgePatch(bytes, verifyRules(expected.rules ?? {}));
    assert.equal(report.verdict, "reject");
    assert.deepEqual([...report.reasons].sort(), [...expected.codes].sort());
    if (expected.parserCode !== undefined) {
      assert.equal(report.violations.length, 1);
      assert.ok(
        report.violations[0]!.detail.startsWith(`${expected.parserCode} at line `),
        report.violations[0]!.detail,
      );
    }
  });
}

Deno.test("the CLI rejects every fixture (exit 1) with the same codes in --json", async () => {
  for (const name of files) {
    const expected = manifest[name]!;
    const rules = expected.rules ?? {};
    const args = ["scope", "--patch", new URL(name, DIR).pathname, "--json"];
    for (const g of rules.allow ?? []) args.push("--allow", g);
    for (const g of rules.forbid ?? []) args.push("--forbid", g);
    for (const g of rules.write ?? []) args.push("--write", g);
    if (rules.rejectSymlinks === true) args.push("--reject-symlinks");
    let out = "";
    const code = await runCli(args, {
      out: (t) => void (out += t),
      err: () => {},
      isTerminal: false,
    });
    assert.equal(code, 1, name);
    const json = JSON.parse(out) as { verdict: string; reasons: string[] };
    assert.equal(json.verdict, "reject");
    assert.deepEqual([...json.reasons].sort(), [...expected.codes].sort(), name);
  }
});

Deno.test("property: mutated hostile patches never make judgePatch throw", () => {
  const corpus = files.map((name) => Deno.readFileSync(new URL(name, DIR)));
  const rules = { allow: ["src/**"], forbid: [".github/"], write: ["src/"] };
  fc.assert(
    fc.property(
      fc.nat({ max: corpus.length - 1 }),
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 8 }),
      fc.nat(),
      (which, flips, cut) => {
        const base = corpus[which]!;
        const bytes = base.slice(0, base.length === 0 ? 0 : (cut % (base.length + 1)));
        for (const [at, value] of flips) if (bytes.length > 0) bytes[at % bytes.length] = value;
        const report = judgePatch(bytes, rules);
        assert.ok(report.verdict === "accept" || report.verdict === "reject");
        assert.equal(report.verdict === "accept", report.reasons.length === 0);
        for (const v of report.violations) {
          assert.ok(!v.detail.startsWith("internal parser failure"), v.detail);
        }
      },
    ),
    { numRuns: 3000 },
  );
});
