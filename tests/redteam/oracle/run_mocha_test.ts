/**
 * Issue #19, red team through `vouch run --backend command:AGENT --goal G
 * --verify "npm test"` (no other flag): a scripted agent makes the harness
 * cheat in an express-shaped mocha project (`test/support/env.js` overrides
 * `Runner.prototype.fail`). The run must end REJECTED, naming the test and the
 * file, although its own baseline recorded "adds" as the failing test.
 */
import { runCheatSuite } from "./_cheats.ts";

runCheatSuite("mocha", ["harness-support"]);
