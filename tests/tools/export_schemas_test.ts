import assert from "node:assert/strict";
import { exportedSchemas, HAND_WRITTEN_SCHEMAS, SCHEMAS_DIR } from "../../tools/export_schemas.ts";

Deno.test("committed schemas/*.schema.json are fresh and none is orphaned (deno task schemas)", async () => {
  const exported = exportedSchemas();
  for (const { file, schema } of exported) {
    const committed = JSON.parse(await Deno.readTextFile(new URL(file, SCHEMAS_DIR)));
    assert.deepEqual(committed, schema, `schemas/${file} is stale: run deno task schemas`);
  }
  const files = [...Deno.readDirSync(SCHEMAS_DIR)].map((e) => e.name).sort();
  assert.deepEqual(
    files,
    [...exported.map((e) => e.file), ...HAND_WRITTEN_SCHEMAS].sort(),
    "no orphan schema files",
  );
});
