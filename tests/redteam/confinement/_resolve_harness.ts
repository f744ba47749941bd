/**
 * Run by resolve_fail_closed_test.ts under the CLI's Deno flags and, bundled,
 * under Node: asks `resolveInside` and the native loop's file tools (through
 * the real file service) about paths through a link chain past PATH_MAX and a
 * dangling link chain in the tree `argv[0]`; prints one JSON object.
 *
 * @module
 */
import process from "node:process";
import { fileService } from "../../../adapters/backends/_file_service.ts";
import { readTool, resolveInside, writeTool } from "../../../adapters/backends/_native_tools.ts";
import { compileToolAccessRules } from "../../../kernel/scope/judge_tool_access.ts";
import { defaultPolicy } from "../../../kernel/lifecycle/policy.ts";

const worktree = process.argv.at(-1)!;
const rules = compileToolAccessRules({ allow: [], protect: [], policy: defaultPolicy() });
const files = fileService({ worktree, sandbox: { kind: "none" } });
const env = { worktree, rules, files, emit: () => {} };
const refused = (r: object) => "refused" in r && (r as { refused: boolean }).refused;
const out: Record<string, unknown> = {};
for (
  const [path, access] of [
    ["l1/planted.txt", "write"],
    ["l1/key.txt", "read"],
    ["l1", "list"],
    ["d1/x", "write"],
    ["d1", "write"],
  ] as const
) {
  const r = await resolveInside(path, access, env);
  out[`resolve ${access} ${path}`] = refused(r) ? "refused" : r;
}
for (const path of ["l1/planted.txt", "d1", "d1/x"]) {
  const r = await writeTool(path, "planted\n", env);
  out[`write_file ${path}`] = r.refused ? "refused" : r.content;
}
const read = await readTool("l1/key.txt", env);
out["read_file l1/key.txt"] = read.refused ? "refused" : read.content;
await files.close();
console.log(JSON.stringify(out));
