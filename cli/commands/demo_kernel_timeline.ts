/**
 * The kernel-only demo: drives the lifecycle reducer through one complete
 * task with in-memory fake adapters (no git, no processes, no clock) and
 * renders the timeline. The baseline runs on the fake main branch first; the
 * fake backend then claims "done" without fixing anything; verification fails;
 * a repair round fixes the bug; verification passes; the verified patch is
 * minted; a (scripted) human approves; the patch is integrated.
 *
 * Reusable: `runKernelDemo()` returns the rows, the rendered lines and the
 * final fake repository, so a command or a test can print or check them.
 *
 * @module
 */
import { sha256Hex } from "../../adapters/digest/mod.ts";
import {
  defaultPolicy,
  initialKernelState,
  type KernelAction,
  type KernelEvent,
  type KernelState,
  MAX_ACTIONS_PER_STEP,
  type SensitiveClass,
  step,
  type TaskRecord,
  type TaskStatus,
} from "../../kernel/mod.ts";

/** One line of the timeline. */
export interface KernelDemoRow {
  readonly seq: number;
  readonly at: number;
  readonly event: string;
  readonly from: TaskStatus | null;
  readonly to: TaskStatus | null;
  readonly actions: string[];
}

/** What the demo produced. */
export interface KernelDemoResult {
  readonly rows: KernelDemoRow[];
  readonly lines: string[];
  readonly events: KernelEvent[];
  readonly state: KernelState;
  /** The demo task's final record (the kernel compacts the finished task out of `state`). */
  readonly task: TaskRecord;
  /** The fake main branch after integration. */
  readonly main: Record<string, string>;
}

type Files = Map<string, string>;

const TASK = "demo-task";
const START = Date.UTC(2026, 0, 1);

const MAIN_FILES: Record<string, string> = {
  "math.ts": "export function add(a: number, b: number): number {\n  return a - b;\n}\n",
  "math_test.ts": 'Deno.test("add adds", () => { if (add(2, 3) !== 5) throw new Error(); });\n',
};

/** The fake backend: round 0 only claims success; later rounds fix what failed. */
function fakeBackend(files: Files, round: number, failing: readonly string[]): void {
  if (round === 0) {
    files.set("NOTES.md", "Done: all tests pass now.\n");
    return;
  }
  if (failing.includes("unit")) {
    files.set("math.ts", (files.get("math.ts") ?? "").replace("a - b", "a + b"));
  }
}

/**
 * The fake contract: `unit` passes when add() adds; `typecheck` always passes.
 * Each check names the (fake, in-memory) receipt of its run, as real results do.
 */
function fakeContract(
  files: Files,
  run: string,
): { id: string; outcome: "pass" | "fail"; receipts: string[] }[] {
  const check = (id: string, pass: boolean) => ({
    id,
    outcome: pass ? "pass" as const : "fail" as const,
    receipts: [sha256Hex(`${run}:${id}:${pass}`)],
  });
  return [
    check("unit", (files.get("math.ts") ?? "").includes("a + b")),
    check("typecheck", true),
  ];
}

function changedPaths(main: Files, tree: Files): string[] {
  const paths = new Set([...main.keys(), ...tree.keys()]);
  return [...paths].filter((p) => main.get(p) !== tree.get(p)).sort();
}

function sensitiveOf(path: string): SensitiveClass[] {
  if (path.startsWith(".github/workflows/")) return ["ci_workflow"];
  if (path === "package.json" || path === "deno.json") return ["dependency_manifest"];
  if (path.endsWith(".lock")) return ["lockfile"];
  return [];
}

function describe(a: KernelAction): string | null {
  switch (a.kind) {
    case "append_log":
      return null;
    case "run_backend":
      return a.feedback.failingChecks.length > 0
        ? `run_backend(round ${a.round}, failing: ${a.feedback.failingChecks.join(",")})`
        : `run_backend(round ${a.round})`;
    case "run_contract":
      return a.phase === "baseline" ? "run_contract(baseline)" : `run_contract(round ${a.round})`;
    case "mint_verified_patch":
      return `mint_verified_patch(round ${a.round})`;
    case "request_approval":
      return `request_approval(${a.action}: ${a.reasons.join(", ")})`;
    case "integrate":
      return `integrate(token from ${a.token.approvalId ?? "policy"})`;
    case "notify":
      return `notify(${a.reason})`;
    case "cleanup":
      return a.cancelRunning ? "cleanup(cancel running)" : "cleanup";
    default:
      return a.kind;
  }
}

/**
 * Runs the kernel demo and returns its timeline.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { runKernelDemo } from "./demo_kernel_timeline.ts";
 * const demo = runKernelDemo();
 * equal(demo.task.status, "completed");
 * ```
 */
export function runKernelDemo(): KernelDemoResult {
  const state = initialKernelState(defaultPolicy());
  const main: Files = new Map(Object.entries(MAIN_FILES));
  const worktrees = new Map<string, Files>();
  const queue: Record<string, unknown>[] = [];
  const events: KernelEvent[] = [];
  const rows: KernelDemoRow[] = [];
  let seq = 0;
  let at = START;
  let patch: { digest: string; paths: string[] } | null = null;
  let task: TaskRecord | null = null;

  function perform(a: KernelAction): void {
    const base = { taskId: a.taskId };
    switch (a.kind) {
      case "create_worktree": {
        const path = `mem://worktrees/${a.taskId}`;
        worktrees.set(path, new Map(main));
        queue.push({ ...base, kind: "worktree_ready", effectId: a.effectId, path, dt: 120 });
        return;
      }
      case "run_backend": {
        const tree = worktrees.get(a.worktree);
        queue.push({ ...base, kind: "backend_started", effectId: a.effectId, dt: 30 });
        if (tree !== undefined) fakeBackend(tree, a.round, a.feedback.failingChecks);
        queue.push({
          ...base,
          kind: "backend_finished",
          effectId: a.effectId,
          outcome: tree === undefined ? "error" : "ok",
          outputBytes: 1_800,
          costUnits: 4,
          fatal: false,
          dt: 45_000,
        });
        return;
      }
      case "extract_diff": {
        const tree = worktrees.get(a.worktree) ?? new Map();
        const paths = changedPaths(main, tree);
        const digest = sha256Hex(paths.map((p) => `${p}\0${tree.get(p) ?? ""}`).join("\0"));
        patch = { digest, paths };
        queue.push({
          ...base,
          kind: "patch_extracted",
          effectId: a.effectId,
          patchDigest: digest,
          filesChanged: paths.length,
          dt: 200,
        });
        return;
      }
      case "check_scope": {
        const paths = patch?.paths ?? [];
        const allowed = new Set(["math.ts", "NOTES.md"]);
        const violations = paths.filter((p) => !allowed.has(p)).map((p) => `out_of_scope:${p}`);
        queue.push({
          ...base,
          kind: "scope_checked",
          effectId: a.effectId,
          verdict: violations.length === 0 ? "accept" : "reject",
          violations,
          sensitive: paths.flatMap(sensitiveOf),
          dt: 20,
        });
        return;
      }
      case "run_contract": {
        const files = a.phase === "baseline"
          ? main
          : worktrees.get(`mem://worktrees/${a.taskId}`) ?? new Map();
        const checks = fakeContract(files, a.effectId);
        queue.push(
          a.phase === "baseline"
            ? {
              ...base,
              kind: "baseline_result",
              setupReceipts: [],
              effectId: a.effectId,
              ran: true,
              unusable: [],
              checks,
              dt: 3_000,
            }
            : {
              ...base,
              kind: "verification_result",
              setupReceipts: [],
              effectId: a.effectId,
              round: a.round,
              checks,
              dt: 3_000,
            },
        );
        return;
      }
      case "mint_verified_patch":
        queue.push({
          ...base,
          kind: "patch_minted",
          effectId: a.effectId,
          patchDigest: a.patchDigest,
          dt: 30,
        });
        return;
      case "request_approval":
        // The scripted human reads the request and approves this exact patch.
        queue.push({
          ...base,
          kind: "approval_granted",
          approvalId: a.approvalId,
          action: a.action,
          patchDigest: a.patchDigest,
          by: "demo-reviewer",
          expiresAt: a.expiresAt,
          dt: 90_000,
        });
        return;
      case "integrate": {
        const tree = worktrees.get(`mem://worktrees/${a.taskId}`) ?? new Map();
        for (const p of changedPaths(main, tree)) {
          const text = tree.get(p);
          if (text === undefined) main.delete(p);
          else main.set(p, text);
        }
        queue.push({
          ...base,
          kind: "integrated",
          effectId: a.effectId,
          ok: true,
          commit: sha256Hex([...main.entries()].flat().join("\0")).slice(7, 19),
          dt: 400,
        });
        return;
      }
      case "cleanup":
        worktrees.delete(`mem://worktrees/${a.taskId}`);
        queue.push({ ...base, kind: "cleanup_done", effectId: a.effectId, dt: 50 });
        return;
      default:
        return; // append_log, notify, cancel_effect: nothing to fake
    }
  }

  queue.push({
    kind: "task_submitted",
    taskId: TASK,
    goal: "Make the failing test in math_test.ts pass.",
    baseRev: "main",
    contractDigest: sha256Hex("unit + typecheck"),
    policyDigest: sha256Hex(JSON.stringify(defaultPolicy())),
    policy: null,
    budget: { wallTimeMs: 600_000, repairRounds: 2, outputBytes: 1_000_000, costUnits: 100 },
    dt: 0,
  });
  while (queue.length > 0 && seq < 100) {
    const { dt, ...body } = queue.shift()!;
    seq++;
    at += Number(dt);
    const event = { v: 1, id: `demo-${seq}`, seq, at, ...body } as KernelEvent;
    const from = state.tasks[TASK]?.status ?? null;
    const { actions } = step(state, event);
    task ??= state.tasks[TASK] ?? null;
    if (actions.length > MAX_ACTIONS_PER_STEP) throw new Error("Cannot run demo: fan-out cap");
    events.push(event);
    rows.push({
      seq,
      at,
      event: event.kind,
      from,
      to: task?.status ?? null,
      actions: actions.map(describe).filter((d): d is string => d !== null),
    });
    for (const a of actions) perform(a);
  }
  if (task === null) throw new Error("Cannot run demo: the task was never created");
  return { rows, lines: renderRows(rows), events, state, task, main: Object.fromEntries(main) };
}

function clock(ms: number): string {
  const s = Math.floor((ms - START) / 1000);
  return `+${String(Math.floor(s / 60)).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
}

function renderRows(rows: readonly KernelDemoRow[]): string[] {
  return rows.map((r) => {
    const move = r.from === r.to ? `${r.to ?? "-"}` : `${r.from ?? "-"} -> ${r.to ?? "-"}`;
    const acts = r.actions.length > 0 ? `  => ${r.actions.join(", ")}` : "";
    const line = `${String(r.seq).padStart(3)} ${clock(r.at)}  ${r.event.padEnd(20)} ${
      move.padEnd(32)
    }${acts}`;
    return line.trimEnd();
  });
}

/**
 * The rendered timeline lines of {@linkcode runKernelDemo}.
 *
 * @example
 * ```ts
 * import { match } from "node:assert/strict";
 * import { kernelDemoTimeline } from "./demo_kernel_timeline.ts";
 * match(kernelDemoTimeline()[0] ?? "", /^ {2}1 \+00:00 {2}task_submitted/);
 * ```
 */
export function kernelDemoTimeline(): string[] {
  return runKernelDemo().lines;
}
