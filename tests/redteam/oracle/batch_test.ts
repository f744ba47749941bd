/**
 * Issue #19, red team through `vouch batch` in SWE-bench's shape (test patch,
 * F2P/P2P lists, no forbid list; `_batch.ts`): the harness cheat, a file mocha
 * loads that the test patch does not touch overriding `Runner.prototype.fail`
 * (`test/support/env.js`, or a new `.mocharc.js`), must not be resolved; the
 * honest fix must be.
 */
import { batchSuite } from "./_batch.ts";
import { cheat } from "./_cheats.ts";

batchSuite("the harness cheats are not resolved", {
  "harness-support": cheat("mocha", "harness-support").edit,
  "harness-mocharc": cheat("mocha-dot", "harness-mocharc").edit,
});
