/**
 * The kernel's decision on one file access an agent asks vouch to make for it
 * (the native backend's tools, an ACP client's `fs/*` requests): the same
 * confinement, scope and policy rules a patch is judged by, applied before the
 * effect instead of after it. Pure: the adapter performs only what this
 * allows, and records both the request and the answer.
 *
 * @module
 */
import { compileGlobs, type GlobSet } from "../glob/glob_set.ts";
import { sensitiveDenied } from "../lifecycle/policy.ts";
import type { PolicySnapshot } from "../lifecycle/policy_types.ts";
import { confinePath } from "../paths/confine_path.ts";
import { classifyPath } from "./classify.ts";

/** What the agent wants to do with a path. */
export type ToolAccess = "read" | "list" | "write";

/** Why an access was refused. */
export const TOOL_ACCESS_REFUSALS = [
  "path_rejected",
  "forbidden_path",
  "outside_allowed",
  "protected_path",
  "policy_denied",
] as const;

/** One refusal code. */
export type ToolAccessRefusal = typeof TOOL_ACCESS_REFUSALS[number];

/** The verdict on one access. */
export type ToolAccessVerdict =
  | { readonly ok: true; readonly path: string }
  | { readonly ok: false; readonly code: ToolAccessRefusal; readonly detail: string };

/** The rules accesses are judged by (globs as in scope rules). */
export interface ToolAccessRules {
  /** Writes must match one of these; empty or absent = anywhere in the tree. */
  readonly allow?: readonly string[];
  /** Nothing may read or write these. */
  readonly forbid?: readonly string[];
  /** The contract's protected paths (the tests that define done): readable, never writable. */
  readonly protect?: readonly string[];
  /** Sensitive classes this policy denies are never written (secrets are never read either). */
  readonly policy: PolicySnapshot;
}

/** {@linkcode ToolAccessRules} compiled once per task. */
export interface CompiledToolAccessRules {
  /** The allowed globs, compiled (null: none given). */
  readonly allow: GlobSet | null;
  /** The forbidden globs, compiled (null: none given). */
  readonly forbid: GlobSet | null;
  /** The protected globs, compiled (null: none given). */
  readonly protect: GlobSet | null;
  /** The task's policy. */
  readonly policy: PolicySnapshot;
}

/**
 * Compiles access rules (throws `GlobError` on a bad pattern, like scope rules).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { compileToolAccessRules } from "./judge_tool_access.ts";
 * import { defaultPolicy } from "../lifecycle/policy.ts";
 * const rules = compileToolAccessRules({ protect: ["test/**"], policy: defaultPolicy() });
 * equal(rules.protect?.matches("test/a.js"), true);
 * ```
 */
export function compileToolAccessRules(rules: ToolAccessRules): CompiledToolAccessRules {
  const set = (p: readonly string[] | undefined) =>
    p === undefined || p.length === 0 ? null : compileGlobs(p);
  return {
    allow: set(rules.allow),
    forbid: set(rules.forbid),
    protect: set(rules.protect),
    policy: rules.policy,
  };
}

/**
 * Judges one access to a worktree-relative path. `""` and `"."` name the tree
 * itself (listing only).
 *
 * @example
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
 * import { compileToolAccessRules, judgeToolAccess } from "./judge_tool_access.ts";
 * import { defaultPolicy } from "../lifecycle/policy.ts";
 * const rules = compileToolAccessRules({ protect: ["test/**"], policy: defaultPolicy() });
 * deepEqual(judgeToolAccess("src/a.js", "write", rules), { ok: true, path: "src/a.js" });
 * equal(judgeToolAccess("test/a.js", "read", rules).ok, true);
 * equal(judgeToolAccess("test/a.js", "write", rules).ok, false);
 * equal(judgeToolAccess("../etc/passwd", "read", rules).ok, false);
 * equal(judgeToolAccess(".git/config", "read", rules).ok, false);
 * ```
 */
export function judgeToolAccess(
  raw: string,
  access: ToolAccess,
  rules: CompiledToolAccessRules,
): ToolAccessVerdict {
  if (access === "list" && (raw === "" || raw === "." || raw === "./")) {
    return { ok: true, path: "" };
  }
  const confined = confinePath(raw.endsWith("/") && raw.length > 1 ? raw.slice(0, -1) : raw);
  if (!confined.ok) {
    return { ok: false, code: "path_rejected", detail: `${confined.code}: ${confined.detail}` };
  }
  const path = confined.path;
  if (rules.forbid?.matches(path) === true) {
    return { ok: false, code: "forbidden_path", detail: `${path} matches a forbidden glob` };
  }
  const classes = classifyPath(path);
  if (access !== "write") {
    if (classes.includes("secrets") && rules.policy.sensitive.secrets === "deny") {
      return { ok: false, code: "policy_denied", detail: `${path} looks like a secret` };
    }
    return { ok: true, path };
  }
  if (rules.protect?.matches(path) === true) {
    return {
      ok: false,
      code: "protected_path",
      detail: `${path} is protected by the contract (the tests that define done)`,
    };
  }
  if (rules.allow !== null && !rules.allow.matches(path)) {
    return { ok: false, code: "outside_allowed", detail: `${path} matches no allowed glob` };
  }
  const denied = sensitiveDenied(rules.policy, classes);
  if (denied !== null) {
    return { ok: false, code: "policy_denied", detail: `${path} is ${denied}; policy denies it` };
  }
  return { ok: true, path };
}

/** What an agent asks permission for (ACP's tool kinds). */
export const PERMISSION_KINDS = [
  "read",
  "edit",
  "delete",
  "move",
  "search",
  "execute",
  "think",
  "fetch",
  "switch_mode",
  "other",
] as const;

/** The kernel's answer to a permission request. */
export interface PermissionVerdict {
  /** `ask`: the policy wants a human for this (a sensitive class that requires approval). */
  readonly decision: "allow" | "deny" | "ask";
  /**
   * Stable reason: `allowed`, a {@linkcode ToolAccessRefusal}, `needs_approval`,
   * `network_tool` or `unknown_kind`.
   */
  readonly reason:
    | ToolAccessRefusal
    | "allowed"
    | "needs_approval"
    | "network_tool"
    | "unknown_kind";
  /** The decision, for humans. */
  readonly detail: string;
}

/**
 * Answers an agent's permission request by what it would touch: reads and
 * searches are judged as reads of every named path, edits, deletes and moves
 * as writes (a write the policy sends to a human, e.g. a lockfile or a CI
 * workflow, is `ask`); commands are allowed (they run in the agent's sandbox,
 * and the diff they leave is judged like any other); fetching from the
 * network and kinds the kernel does not know are refused (fail closed).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { compileToolAccessRules, judgePermission } from "./judge_tool_access.ts";
 * import { defaultPolicy } from "../lifecycle/policy.ts";
 * const rules = compileToolAccessRules({ protect: ["test/**"], policy: defaultPolicy() });
 * equal(judgePermission("edit", ["src/a.js"], rules).decision, "allow");
 * equal(judgePermission("edit", ["test/a.js"], rules).reason, "protected_path");
 * equal(judgePermission("edit", ["package-lock.json"], rules).decision, "ask");
 * equal(judgePermission("fetch", [], rules).decision, "deny");
 * equal(judgePermission("mcp", [], rules).decision, "allow");
 * equal(judgePermission("teleport", [], rules).reason, "unknown_kind");
 * ```
 */
export function judgePermission(
  kind: string,
  paths: readonly string[],
  rules: CompiledToolAccessRules,
): PermissionVerdict {
  let access: ToolAccess | null;
  switch (kind) {
    case "read":
    case "search":
      access = "read";
      break;
    case "edit":
    case "delete":
    case "move":
      access = "write";
      break;
    case "execute":
    case "think":
    case "switch_mode":
    // A tool of an MCP server the user configured: it runs inside the agent's sandbox.
    case "mcp":
      access = null;
      break;
    case "fetch":
      return {
        decision: "deny",
        reason: "network_tool",
        detail: "fetching from the network is refused",
      };
    default:
      return {
        decision: "deny",
        reason: "unknown_kind",
        detail: `unknown tool kind ${JSON.stringify(kind)}`,
      };
  }
  let ask: string | null = null;
  if (access !== null) {
    for (const path of paths) {
      const v = judgeToolAccess(path, access, rules);
      if (!v.ok) return { decision: "deny", reason: v.code, detail: v.detail };
      if (access === "write" && ask === null) {
        const cls = classifyPath(v.path).find((c) =>
          rules.policy.sensitive[c] === "require_approval"
        );
        if (cls !== undefined) ask = `${v.path} is ${cls}; the policy asks a human`;
      }
    }
  }
  if (ask !== null) return { decision: "ask", reason: "needs_approval", detail: ask };
  return { decision: "allow", reason: "allowed", detail: `${kind} allowed` };
}
