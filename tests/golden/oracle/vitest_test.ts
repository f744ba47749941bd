/**
 * Issue #19, honest classes on vitest 3 (`npm test`, `vitest run`): patches a careful reviewer accepts
 * stay VERIFIED through `vouch verify --dir R --patch P --verify CMD` with no
 * other flag and no contract, once the tests are the oracle by default. See
 * `_honest.ts` for the classes and `_runners.ts` for the fixture.
 */
import { honestSuite } from "./_honest.ts";

honestSuite("vitest", ["source-only", "fix-and-new-test"]);
