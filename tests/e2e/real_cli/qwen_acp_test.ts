// The REAL `@qwen-code/qwen-code` (pinned in tests/fixtures/agent_clis) through
// `vouch run --backend acp:qwen` (the preset: `qwen --acp`, OPENAI_* forwarded by name,
// `authenticate` with its `openai` method), driven by the scripted Chat Completions server on
// 127.0.0.1 (tests/fixtures/chat_server.ts, streaming as the real API does; qwen's side passes,
// a permission classifier, a memory pass and a suggestion pass, get `{}`). The scenarios are
// shared by every agent path (./_scenarios.ts); the cheat is at the end of this file.
import { cheatScenario, QWEN, workScenario } from "./_scenarios.ts";

// One run: `run_shell_command` lines naming test/add.test.js; its `read_file` + `edit` of
// test/add.test.js (protected by the contract) refused by vouch; round 2 a second
// `session/prompt` in the live session; the honest fix with `read_file` + `edit` VERIFIED;
// usage from its `usage_update`.
workScenario(QWEN);

// Issue #19 through this agent: it skips the failing test; REJECTED with the oracle's words.
cheatScenario(QWEN);
