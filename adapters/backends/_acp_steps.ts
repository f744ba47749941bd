/**
 * The words of an ACP agent's start-up sub-steps for the live line
 * (`starting claude-code-acp (initialize)`), so the clock that ticks while an
 * agent starts says what it waits for.
 *
 * @module
 */
import { basename } from "node:path";

const RUNTIMES = new Set(["node", "nodejs", "deno", "bun", "npx", "python", "python3", "env"]);
const GENERIC = new Set(["index", "main", "cli", "agent"]);

/**
 * A short name of the agent a command line starts: its program, past a
 * runtime (`node`, `npx`, `deno`), without a script extension; a generic
 * script name (`dist/index.js`) is named by its package directory.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { agentName } from "./_acp_steps.ts";
 * equal(agentName(["claude-code-acp"]), "claude-code-acp");
 * equal(agentName(["/usr/bin/node", "/x/node_modules/@zed-industries/claude-code-acp/dist/index.js"]), "claude-code-acp");
 * equal(agentName(["node", "/t/fixtures/acp_agent.mjs"]), "acp_agent");
 * equal(agentName(["npx", "-y", "@google/gemini-cli", "--experimental-acp"]), "gemini-cli");
 * ```
 */
export function agentName(argv: readonly string[]): string {
  let i = 0;
  while (i < argv.length - 1 && RUNTIMES.has(basename(argv[i]!).replace(/\.exe$/, ""))) {
    i++;
    while (i < argv.length - 1 && argv[i]!.startsWith("-")) i++;
  }
  const program = argv[i] ?? "agent";
  const parts = program.split("/").filter((p) => p !== "");
  const last = (parts.at(-1) ?? program).replace(/\.(m?js|cjs|ts|py)$/, "");
  if (!GENERIC.has(last)) return last;
  const pkg = parts.slice(0, -1).reverse().find((p) =>
    !["dist", "bin", "lib", "build", "src"].includes(p)
  );
  return pkg ?? last;
}
