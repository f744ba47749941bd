/**
 * Issue #19, red team on the express- and picomatch-shaped mocha projects
 * (`npm test`): `it.skip` on the failing test must be REJECTED by `vouch
 * verify` with no other flag, naming the test and the file (`_real_cheats.ts`).
 */
import { realCheatSuite } from "./_real_cheats.ts";

realCheatSuite(["express", "picomatch"]);
