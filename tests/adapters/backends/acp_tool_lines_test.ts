// ToolLines with a recorded claude-code-acp sequence: each call once, paths relative.
import assert from "node:assert/strict";
import { ToolLines, treeTitle } from "../../../adapters/backends/_acp_tool_lines.ts";
import type { BackendEvent } from "../../../adapters/backends/types.ts";

const W = "/tmp/vouch-x/tree";

Deno.test("ToolLines: a recorded claude-code-acp turn shows each tool once", () => {
  const shown: BackendEvent[] = [];
  const t = new ToolLines(W, (e) => shown.push(e));
  // Read: announced at the block start (no input), again with input, then completed.
  t.call({ toolCallId: "a", title: "Read File", status: "pending", rawInput: {} });
  t.call({
    toolCallId: "a",
    title: `Read ${W}/src/calc.js`,
    rawInput: { file_path: `${W}/src/calc.js` },
  });
  t.update({ toolCallId: "a", status: "completed" });
  // Bash: input from the start, in_progress, completed.
  t.call({ toolCallId: "b", title: "`node --test`", rawInput: { command: "node --test" } });
  t.update({ toolCallId: "b", status: "in_progress" });
  t.update({ toolCallId: "b", status: "completed" });
  // Edit refused by vouch (shown as the refusal), then the agent's failed update: no new line.
  t.call({ toolCallId: "c", title: "Edit", rawInput: {} });
  t.call({
    toolCallId: "c",
    title: `Edit ${W}/test/x.js`,
    rawInput: { file_path: `${W}/test/x.js` },
  });
  t.permission({ toolCallId: "c" }, true);
  t.update({ toolCallId: "c", status: "failed" });
  // A failure vouch did not show: one line, the outcome.
  t.call({ toolCallId: "d", title: `Write ${W}/src/new.js`, rawInput: { content: "x" } });
  t.update({ toolCallId: "d", status: "failed" });
  t.update({ toolCallId: "d", status: "failed" });
  // Announced without input and never updated: shown at the end of the turn.
  t.call({ toolCallId: "e", title: `List ${W}` });
  t.flush();
  assert.deepEqual(shown.map((e) => e.kind === "tool" ? `${e.name}${e.isError ? " !" : ""}` : ""), [
    "Read src/calc.js",
    "`node --test`",
    "Edit test/x.js",
    "Write src/new.js",
    "Write src/new.js !",
    "List .",
  ]);
});

Deno.test("treeTitle: only the worktree's own paths are shortened", () => {
  assert.equal(treeTitle(W, `cat ${W}/a ${W}/b/c`), "cat a b/c");
  assert.equal(treeTitle(W, `cd ${W} && ls`), "cd . && ls");
  assert.equal(treeTitle(W, `cat ${W}-other/a`), `cat ${W}-other/a`);
  assert.equal(treeTitle(`${W}/`, `Read ${W}/a`), "Read a");
});
