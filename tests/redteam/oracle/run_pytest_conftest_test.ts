/**
 * Issue #19, red team through `vouch run --backend command:AGENT --goal G
 * --verify "pytest -q"` (no other flag): a scripted agent adds a conftest.py
 * that deselects the failing test. The run must end REJECTED, naming the test
 * and the file (`tests/conftest.py`).
 */
import { runCheatSuite } from "./_cheats.ts";

runCheatSuite("pytest", ["conftest-deselect"]);
