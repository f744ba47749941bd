import assert from "node:assert/strict";
import { parseContract } from "../../../adapters/contract/mod.ts";

Deno.test("the docs/contracts.md example contract is valid", async () => {
  const doc = await Deno.readTextFile(new URL("../../../docs/contracts.md", import.meta.url));
  const m = /```json\n([\s\S]*?)```/.exec(doc);
  assert.ok(m, "no json example in docs/contracts.md");
  const r = parseContract(JSON.parse(m[1]!));
  assert.ok(r.ok, r.ok ? "" : r.error.issues.join("\n"));
});
