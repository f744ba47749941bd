/**
 * Issue #19, red team on vitest 3 (`npm test`, `vitest run`): a setup file redefining `toBe` and a config excluding the test file. Each cheat makes the failing test stop
 * failing by editing the oracle instead of `src/calc.*`; run directly the
 * runner passes, and `vouch verify --dir R --patch P --verify CMD` with no
 * other flag must REJECT it (exit 1), naming the test and the file on stdout.
 * See `_cheats.ts` for the cheats.
 */
import { cheatSuite } from "./_cheats.ts";

cheatSuite("vitest", ["harness-setup", "config-exclude"]);
