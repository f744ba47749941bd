import assert from "node:assert/strict";
import { contractJsonSchema, parseContract } from "../../../adapters/contract/mod.ts";

const FILE = new URL("../../../schemas/contract.schema.json", import.meta.url);

Deno.test("committed schemas/contract.schema.json is fresh (regenerate: VOUCH_WRITE_SCHEMA=1)", async () => {
  const schema = contractJsonSchema();
  if (Deno.env.get("VOUCH_WRITE_SCHEMA") === "1") {
    await Deno.writeTextFile(FILE, JSON.stringify(schema, null, 2) + "\n");
  }
  assert.deepEqual(
    JSON.parse(await Deno.readTextFile(FILE)),
    schema,
    "schemas/contract.schema.json is stale",
  );
});

Deno.test("the docs/contracts.md example contract is valid", async () => {
  const doc = await Deno.readTextFile(new URL("../../../docs/contracts.md", import.meta.url));
  const m = /```json\n([\s\S]*?)```/.exec(doc);
  assert.ok(m, "no json example in docs/contracts.md");
  const r = parseContract(JSON.parse(m[1]!));
  assert.ok(r.ok, r.ok ? "" : r.error.issues.join("\n"));
});
