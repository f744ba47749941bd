/**
 * Issue #19, red team through `vouch run --backend command:AGENT --goal G
 * --verify "node --test"` (no other flag), the issue's own example: a
 * scripted agent turns the failing test into `test.skip`. The run must end
 * REJECTED, naming the test and the file, although its own baseline recorded
 * "adds" as the failing test.
 */
import { runCheatSuite } from "./_cheats.ts";

runCheatSuite("node", ["skip"]);
