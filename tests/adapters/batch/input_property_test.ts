import assert from "node:assert/strict";
import fc from "fast-check";
import { join } from "node:path";
import { BatchInputError } from "../../../adapters/batch/mod.ts";
import { readPredictions, readTasks, resolveTask } from "../../../adapters/batch/input.ts";

Deno.test("property: any JSON value as a task line is a task or a BatchInputError, never another throw", () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      try {
        const t = resolveTask(value, "/w", "line 1");
        assert.equal(typeof t.id, "string");
      } catch (error) {
        assert.ok(error instanceof BatchInputError, String(error));
        assert.equal(error.code, "tasks_invalid");
      }
    }),
  );
});

Deno.test("property: any text as a tasks or predictions file reads or fails with a BatchInputError", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const texts = fc.oneof(
      fc.string(),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.array(fc.jsonValue().map((v) => JSON.stringify(v))).map((l) => l.join("\n")),
    );
    await fc.assert(
      fc.asyncProperty(texts, async (text) => {
        const path = join(dir, "f");
        await Deno.writeTextFile(path, text);
        for (const read of [readTasks, readPredictions]) {
          try {
            await read(path);
          } catch (error) {
            assert.ok(error instanceof BatchInputError, String(error));
          }
        }
      }),
      { numRuns: 200 },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
