/**
 * Issue #19 on real-project shapes (express, picomatch, pallets/click; see
 * `tests/golden/oracle/_real_shapes.ts`): the honest source fix of each is
 * VERIFIED through `vouch verify --dir R --patch P --verify CMD` with no other
 * flag, the fixture first shown to fail at its base and pass with the fix
 * when its tests run directly. Their cheats are in `tests/redteam/oracle/`.
 */
import assert from "node:assert/strict";
import {
  bareRunWith,
  patchOfEdit,
  runnerTest,
  verifyAsUser,
  withRunnerProject,
} from "../oracle/_runners.ts";
import { realFix, realShape, type RealShapeName } from "../oracle/_real_shapes.ts";
import { assertVerified } from "../oracle/_honest.ts";

for (const name of ["express", "picomatch", "click"] as RealShapeName[]) {
  const shape = realShape(name);
  const title = `real projects: ${name}-shaped (${shape.verify}): a source-only fix is VERIFIED`;
  Deno.test({ name: title, ignore: runnerTest(shape.runner, title) }, async () => {
    await withRunnerProject(shape, async (project) => {
      const base = await bareRunWith(project, shape, {});
      assert.notEqual(base.code, 0, `the base fails\n${base.output}`);
      const fixed = await bareRunWith(project, shape, realFix(shape));
      assert.equal(fixed.code, 0, `the fix passes when run directly\n${fixed.output}`);
      const patch = await patchOfEdit(project, realFix(shape), "fix");
      assertVerified(await verifyAsUser(project, shape, patch), `${name}: a source-only fix`);
    });
  });
}
