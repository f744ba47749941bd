/**
 * Issue #19, honest classes on vitest 3 (`npm test`, `vitest run`): a fix that also corrects a
 * test pinning the bug (a passing base test that expects what the bug
 * returns) stays VERIFIED through `vouch verify` with no other flag: the
 * base's failing test passes on the fixed code, and the one base test that now
 * fails there is the wrong test the patch itself rewrites and passes.
 * See `_honest.ts`.
 */
import { honestSuite } from "./_honest.ts";

honestSuite("vitest", ["fix-wrong-test"]);
