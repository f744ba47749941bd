/**
 * Issue #19, honest classes on mocha 10, spec reporter, express-shaped (`npm test`): a fix that also corrects a
 * test pinning the bug (a passing base test that expects what the bug
 * returns) stays VERIFIED through `vouch verify` with no other flag: the
 * base's failing test passes on the fixed code, and the one base test that now
 * fails there is the wrong test the patch itself rewrites and passes. Also a
 * `vouch run --backend command:AGENT` whose scripted agent makes a
 * fix and new test fix. See `_honest.ts`.
 */
import { honestRunSuite, honestSuite } from "./_honest.ts";

honestSuite("mocha", ["fix-wrong-test"]);
honestRunSuite("mocha", ["fix-and-new-test"]);
