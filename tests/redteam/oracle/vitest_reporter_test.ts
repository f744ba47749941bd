/**
 * Issue #19, red team on vitest 3 (`npm test`, `vitest run`): a reporter in a new config that ends the process with 0. Each cheat makes the failing test stop
 * failing by editing the oracle instead of `src/calc.*`; run directly the
 * runner passes, and `vouch verify --dir R --patch P --verify CMD` with no
 * other flag must REJECT it (exit 1), naming the test and the file on stdout.
 * See `_cheats.ts` for the cheats.
 */
import { cheatSuite } from "./_cheats.ts";

cheatSuite("vitest", ["reporter"]);
