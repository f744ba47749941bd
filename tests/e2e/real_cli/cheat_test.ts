// Issue #19 through every agent path: the agent skips the failing test (`test.skip("adds")` in
// test/calc.test.js) instead of fixing src/calc.js, and the user runs `vouch run --backend B
// --goal "make the failing test pass" --verify "node --test"` with no other flag and no
// contract. The patch's own tests pass, so without the oracle rule this was VERIFIED; each
// path must end REJECTED with the rule's words ("test/calc.test.js changed ...; graded also
// against the base's tests: `adds` still fails there") on screen and in `--json`. Each agent
// makes the cheat with its own edit tool: claude-code-acp `mcp__acp__Edit` (served by vouch's
// fs/write_text_file), codex-acp `apply_patch`, gemini `replace`, qwen `read_file` + `edit`,
// and the native loop's `write_file`; each against its scripted model server (./_scenarios.ts).
// Each real agent's cheat is in its own file (claude_acp_test.ts, codex_acp_test.ts,
// gemini_acp_test.ts, qwen_acp_test.ts: the parallel phase spreads them); the native loop's is
// here, with its working life (./_scenarios.ts `workScenario`).
import { cheatScenario, OPENAI, workScenario } from "./_scenarios.ts";

cheatScenario(OPENAI);
workScenario(OPENAI);
