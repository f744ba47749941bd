// The REAL `@google/gemini-cli` (pinned in tests/fixtures/agent_clis) through
// `vouch run --backend acp:gemini` (the preset: `gemini --experimental-acp`, GEMINI_API_KEY and
// GOOGLE_GEMINI_BASE_URL forwarded by name, `authenticate` with `gemini-api-key`), driven by the
// scripted Gemini API on 127.0.0.1 (tests/fixtures/gemini_server.ts:
// `streamGenerateContent?alt=sse` as the real API streams). The scenarios are shared by every
// agent path (./_scenarios.ts); the cheat is at the end of this file.
import { cheatScenario, GEMINI, workScenario } from "./_scenarios.ts";

// One run: `run_shell_command` lines naming test/add.test.js; its `replace` of test/add.test.js
// (protected by the contract) refused by vouch; round 2 a second `session/prompt` in the live
// session; the honest fix with `replace` VERIFIED; usage from its `_meta.quota.token_count`.
workScenario(GEMINI);

// Issue #19 through this agent: it skips the failing test; REJECTED with the oracle's words.
cheatScenario(GEMINI);
