/**
 * Issue #19, red team on the pallets/click-shaped project (`pytest -q`): the
 * failing test renamed, skipped, or the existing `tests/conftest.py` edited to
 * report failures as passes must be REJECTED by `vouch verify` with no other
 * flag, naming the test and the file (`_real_cheats.ts`).
 */
import { realCheatSuite } from "./_real_cheats.ts";

realCheatSuite(["click"]);
