import assert from "node:assert/strict";
import fc from "fast-check";
import { confinePath } from "../../../kernel/paths/confine_path.ts";
import { defaultPolicy } from "../../../kernel/lifecycle/policy.ts";
import {
  compileToolAccessRules,
  judgeToolAccess,
  TOOL_ACCESS_REFUSALS,
} from "../../../kernel/scope/judge_tool_access.ts";

const rules = compileToolAccessRules({
  allow: ["src/**", "test/**", "README.md"],
  forbid: ["vendor/**"],
  protect: ["test/**"],
  policy: defaultPolicy(),
});

Deno.test("judgeToolAccess: the refusals a patch would also get", () => {
  const cases: [string, "read" | "list" | "write", string | true][] = [
    ["src/a.ts", "write", true],
    ["src/a.ts", "read", true],
    ["test/a.test.ts", "read", true],
    ["test/a.test.ts", "write", "protected_path"],
    ["lib/a.ts", "write", "outside_allowed"],
    ["lib/a.ts", "read", true],
    ["vendor/x.js", "read", "forbidden_path"],
    ["../x", "read", "path_rejected"],
    ["/etc/passwd", "read", "path_rejected"],
    [".git/config", "read", "path_rejected"],
    [".GIT/config", "write", "path_rejected"],
    ["src/.env", "read", "policy_denied"],
    ["", "list", true],
    ["", "read", "path_rejected"],
  ];
  for (const [path, access, want] of cases) {
    const v = judgeToolAccess(path, access, rules);
    if (want === true) assert.equal(v.ok, true, `${access} ${path}`);
    else assert.equal(v.ok ? "ok" : v.code, want, `${access} ${path}`);
  }
});

Deno.test("judgeToolAccess property: never throws; an allowed path is confined and never protected for writes", () => {
  const segment = fc.oneof(
    fc.constantFrom("src", "test", "..", ".", ".git", "vendor", "a.ts", ".env", "", "README.md"),
    fc.string({ maxLength: 6 }),
  );
  fc.assert(
    fc.property(
      fc.array(segment, { maxLength: 5 }).map((s) => s.join("/")),
      fc.constantFrom("read", "list", "write") as fc.Arbitrary<"read" | "list" | "write">,
      (path, access) => {
        const v = judgeToolAccess(path, access, rules);
        if (!v.ok) {
          assert.ok((TOOL_ACCESS_REFUSALS as readonly string[]).includes(v.code));
          return;
        }
        if (v.path === "") {
          assert.equal(access, "list");
          return;
        }
        const c = confinePath(v.path);
        assert.ok(c.ok && c.path === v.path);
        if (access === "write") {
          assert.ok(!rules.protect!.matches(v.path));
          assert.ok(rules.allow!.matches(v.path));
        }
        assert.ok(!rules.forbid!.matches(v.path));
      },
    ),
    { numRuns: 2000 },
  );
});
