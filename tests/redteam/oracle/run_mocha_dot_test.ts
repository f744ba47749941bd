/**
 * Issue #19, red team through `vouch run --backend command:AGENT --goal G
 * --verify "npm test"` (no other flag): a scripted agent skips the failing
 * test of a picomatch-shaped mocha project (dot reporter). The run must end
 * REJECTED, naming the test and the file.
 */
import { runCheatSuite } from "./_cheats.ts";

runCheatSuite("mocha-dot", ["skip"]);
