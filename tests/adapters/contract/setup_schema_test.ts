import assert from "node:assert/strict";
import fc from "fast-check";
import { parseContract } from "../../../adapters/contract/mod.ts";
import { canonicalDigest } from "../../../adapters/canonical_json/canonical_json.ts";
import { planDependencies } from "../../../adapters/deps/dependency_plan.ts";

const CHECKS = [{ name: "tests", run: "node --test" }];

Deno.test("contract setup: argv and shell commands, defaults (600 s, network deny)", () => {
  const r = parseContract({
    checks: CHECKS,
    setup: { commands: ["npm ci", ["npm", "run", "build"]] },
  });
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  assert.deepEqual(r.contract.setup, {
    commands: [{ shell: "npm ci" }, { argv: ["npm", "run", "build"] }],
    timeoutMs: 600_000,
    network: "deny",
  });
  const allow = parseContract({
    checks: CHECKS,
    setup: { commands: ["npm ci"], timeout: 90.5, network: "allow" },
  });
  assert.ok(allow.ok);
  assert.equal(allow.contract.setup?.timeoutMs, 90_500);
  assert.equal(allow.contract.setup?.network, "allow");
  // A positive timeout never rounds down to "no time" (checks likewise).
  const tiny = parseContract({
    checks: [{ name: "t", run: "true", timeout: 5e-324 }],
    setup: { commands: ["true"], timeout: 1e-9 },
  });
  assert.ok(tiny.ok);
  assert.equal(tiny.contract.setup?.timeoutMs, 1);
  assert.equal(tiny.contract.checks[0]?.timeoutMs, 1);
});

Deno.test("contract setup: absent stays absent (contract digests of existing contracts unchanged)", () => {
  const r = parseContract({ checks: CHECKS });
  assert.ok(r.ok);
  assert.equal("setup" in r.contract, false);
  const { sourceDigest, ...model } = r.contract;
  assert.equal(
    canonicalDigest(model as unknown as never),
    canonicalDigest({
      description: "",
      checks: r.contract.checks,
      protect: [],
    } as unknown as never),
  );
  // what a VerifiedPatch records: the digest of the file as given
  assert.equal(sourceDigest, canonicalDigest({ checks: CHECKS } as unknown as never));
});

Deno.test("contract setup: malformed setups are refused with a path per problem", () => {
  const cases: [unknown, string][] = [
    [{ commands: [] }, "setup.commands"],
    [{}, "setup.commands"],
    [{ commands: [""] }, "setup.commands.0"],
    [{ commands: [[]] }, "setup.commands.0"],
    [{ commands: ["a\0b"] }, "setup.commands.0"],
    [{ commands: ["npm ci"], network: "sometimes" }, "setup.network"],
    [{ commands: ["npm ci"], timeout: 0 }, "setup.timeout"],
    [{ commands: ["npm ci"], timeout: 3601 }, "setup.timeout"],
    [{ commands: ["npm ci"], env: { TOKEN: "x" } }, "setup"],
    ["npm ci", "setup"],
  ];
  for (const [setup, path] of cases) {
    const r = parseContract({ checks: CHECKS, setup });
    assert.equal(r.ok, false, JSON.stringify(setup));
    if (r.ok) continue;
    assert.equal(r.error.code, "contract_invalid");
    assert.ok(
      r.error.issues.some((i) => i.startsWith(`${path}:`) || i.startsWith(`${path}.`)),
      `${JSON.stringify(setup)}: ${r.error.issues.join("; ")}`,
    );
  }
});

Deno.test("contract setup: any valid setup round-trips its commands in order (property)", () => {
  const command = fc.oneof(
    fc.string({ minLength: 1, maxLength: 20 }).filter((s) => !s.includes("\0")),
    fc.array(fc.string({ minLength: 1, maxLength: 10 }).filter((s) => !s.includes("\0")), {
      minLength: 1,
      maxLength: 4,
    }),
  );
  fc.assert(
    fc.property(
      fc.array(command, { minLength: 1, maxLength: 6 }),
      fc.constantFrom("deny", "allow"),
      (commands, network) => {
        const r = parseContract({ checks: CHECKS, setup: { commands, network } });
        assert.ok(r.ok, r.ok ? "" : r.error.message);
        assert.deepEqual(
          r.contract.setup?.commands,
          commands.map((c) => typeof c === "string" ? { shell: c } : { argv: c }),
        );
        assert.equal(r.contract.setup?.network, network);
      },
    ),
    { numRuns: 200 },
  );
});

Deno.test("the docs/contracts.md setup example is a valid contract", async () => {
  const doc = await Deno.readTextFile(new URL("../../../docs/contracts.md", import.meta.url));
  const m = /```jsonc\n([\s\S]*?)```/.exec(doc);
  assert.ok(m, "no jsonc setup example in docs/contracts.md");
  const r = parseContract(JSON.parse(m[1]!));
  assert.ok(r.ok, r.ok ? "" : r.error.issues.join("\n"));
  assert.equal(r.contract.setup?.network, "allow");
});

Deno.test("dependency plan: with setup nothing is linked and manifest changes are allowed; without, refused", () => {
  const changed = ["src/a.js", "package.json", "package-lock.json"];
  assert.deepEqual(planDependencies(changed, ["node_modules"], { hasSetup: true }), {
    mode: "setup",
    manifests: ["package.json", "package-lock.json"],
  });
  assert.deepEqual(planDependencies(["src/a.js"], ["node_modules"], { hasSetup: true }), {
    mode: "setup",
    manifests: [],
  });
  const refused = planDependencies(changed, ["node_modules"], { hasSetup: false });
  assert.equal(refused.mode, "refuse");
  if (refused.mode === "refuse") assert.match(refused.reason, /Declare setup commands/);
});
