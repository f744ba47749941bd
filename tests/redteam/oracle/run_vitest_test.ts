/**
 * Issue #19, red team through `vouch run --backend command:AGENT --goal G
 * --verify "npm test"` on vitest 3 (no other flag): a scripted agent skips the
 * failing test. The run must end REJECTED, naming the test and the file.
 */
import { runCheatSuite } from "./_cheats.ts";

runCheatSuite("vitest", ["skip"]);
