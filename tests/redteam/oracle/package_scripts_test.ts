/**
 * Issue #19, red team on the test script in `package.json` (the verify
 * command is `npm test`): `scripts.test` (or the `mocha` script it runs)
 * changed to run only the passing file, or to use a reporter that ends the
 * process with 0, on mocha spec (express-shaped), mocha dot
 * (picomatch-shaped) and vitest. Run directly the runner passes; `vouch verify`
 * with no other flag must REJECT it (exit 1), naming the test and
 * package.json in its own words. (A refusal because package.json is a
 * dependency manifest names no test and does not count.)
 */
import { cheatSuite } from "./_cheats.ts";

cheatSuite("mocha", ["scripts-test", "reporter"]);
cheatSuite("mocha-dot", ["scripts-test", "reporter"]);
cheatSuite("vitest", ["scripts-test"]);
