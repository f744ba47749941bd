/**
 * Issue #19, red team on jest 29 (`npm test`, `jest`): the failing test's
 * expectation edited, skipped (`it.skip`), and the harness cheat (a
 * package.json `jest.setupFilesAfterEnv` file that makes `toBe` always pass).
 * Each makes the failing test stop failing by editing the oracle instead of
 * `src/calc.js`; run directly jest passes, and `vouch verify --dir R --patch P
 * --verify CMD` with no other flag must REJECT it (exit 1), naming the test and
 * the file on stdout. See `_cheats.ts` for the cheats.
 */
import { cheatSuite } from "./_cheats.ts";

cheatSuite("jest", ["expectation", "skip", "harness-setup"]);
