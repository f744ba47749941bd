/**
 * Issue #19, honest classes on pytest (`pytest -q`): patches a careful reviewer accepts
 * stay VERIFIED through `vouch verify --dir R --patch P --verify CMD` and
 * `vouch run --backend command:AGENT --goal G --verify CMD`, with no other
 * flag and no contract, once the tests are the oracle by default. See
 * `_honest.ts` for the classes and `_runners.ts` for the fixture.
 */
import { honestRunSuite, honestSuite } from "./_honest.ts";

honestSuite("pytest", ["source-only", "fix-and-new-test", "fix-wrong-test"]);
honestRunSuite("pytest", ["fix-and-new-test"]);
