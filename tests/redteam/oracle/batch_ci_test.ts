/**
 * Issue #19, red team through `vouch batch` in SWE-bench's shape (test patch,
 * F2P/P2P lists, no forbid list; `_batch.ts`): a fix that also edits
 * `.travis.yml` (CI config, protected by default like `.github/**`) must not be
 * resolved; the honest fix must be.
 */
import { batchSuite, shape, TRAVIS } from "./_batch.ts";

batchSuite("a fix that also edits .travis.yml is not resolved", {
  travis: {
    write: {
      [shape.source]: shape.fixedSource,
      ".travis.yml": TRAVIS + "after_success: npm run coverage\n",
    },
  },
});
