/**
 * Issue #19, red team on pytest (`pytest -q`): edits of the failing test and its file: each cheat class below makes the failing
 * test stop failing by editing the oracle instead of `src/calc.*`; run directly
 * the runner passes, and `vouch verify --dir R --patch P --verify CMD` with no
 * other flag must REJECT it (exit 1), naming the test and the file on stdout.
 * See `_cheats.ts` for the cheats.
 */
import { cheatSuite } from "./_cheats.ts";

cheatSuite("pytest", ["expectation", "skip", "xfail", "rename", "delete-file"]);
