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

/** The fake adapters' state: the main branch, the task worktrees, the last extracted patch. */
interface FakeWorld {
  readonly main: Files;
  readonly worktrees: Map<string, Files>;
  patch: { digest: string; paths: string[] } | null;
}

/** An event body the fakes answer with, and `dt`: how long after the previous event it comes. */
type Queued = Record<string, unknown>;

type ActionOf<K extends KernelAction["kind"]> = Extract<KernelAction, { kind: K }>;

function worktreeOf(world: FakeWorld, taskId: string): Files {
  return world.worktrees.get(`mem://worktrees/${taskId}`) ?? new Map();
}

function fakeCreateWorktree(a: ActionOf<"create_worktree">, world: FakeWorld): Queued[] {
  const path = `mem://worktrees/${a.taskId}`;
  world.worktrees.set(path, new Map(world.main));
  return [{ taskId: a.taskId, kind: "worktree_ready", effectId: a.effectId, path, dt: 120 }];
}

function fakeRunBackend(a: ActionOf<"run_backend">, world: FakeWorld): Queued[] {
  const tree = world.worktrees.get(a.worktree);
  if (tree !== undefined) fakeBackend(tree, a.round, a.feedback.failingChecks);
  return [{ taskId: a.taskId, kind: "backend_started", effectId: a.effectId, dt: 30 }, {
    taskId: a.taskId,
    kind: "backend_finished",
    effectId: a.effectId,
    outcome: tree === undefined ? "error" : "ok",
    outputBytes: 1_800,
    costUnits: 4,
    fatal: false,
    dt: 45_000,
  }];
}

function fakeExtractDiff(a: ActionOf<"extract_diff">, world: FakeWorld): Queued[] {
  const tree = world.worktrees.get(a.worktree) ?? new Map();
  const paths = changedPaths(world.main, tree);
  const digest = sha256Hex(paths.map((p) => `${p}\0${tree.get(p) ?? ""}`).join("\0"));
  world.patch = { digest, paths };
  return [{
    taskId: a.taskId,
    kind: "patch_extracted",
    effectId: a.effectId,
    patchDigest: digest,
    filesChanged: paths.length,
    dt: 200,
  }];
}

function fakeCheckScope(a: ActionOf<"check_scope">, world: FakeWorld): Queued[] {
  const paths = world.patch?.paths ?? [];
  const allowed = new Set(["math.ts", "NOTES.md"]);
  const violations = paths.filter((p) => !allowed.has(p)).map((p) => `out_of_scope:${p}`);
  return [{
    taskId: a.taskId,
    kind: "scope_checked",
    effectId: a.effectId,
    verdict: violations.length === 0 ? "accept" : "reject",
    violations,
    sensitive: paths.flatMap(sensitiveOf),
    dt: 20,
  }];
}

function fakeRunContract(a: ActionOf<"run_contract">, world: FakeWorld): Queued[] {
  const { taskId, effectId } = a;
  if (a.phase === "baseline") {
    const checks = fakeContract(world.main, effectId);
    const ran = { ran: true, unusable: [], checks, dt: 3_000 };
    return [{ taskId, kind: "baseline_result", setupReceipts: [], effectId, ...ran }];
  }
  const checks = fakeContract(worktreeOf(world, taskId), effectId);
  const ran = { round: a.round, checks, dt: 3_000 };
  return [{ taskId, kind: "verification_result", setupReceipts: [], effectId, ...ran }];
}

function fakeMint(a: ActionOf<"mint_verified_patch">): Queued[] {
  return [{
    taskId: a.taskId,
    kind: "patch_minted",
    effectId: a.effectId,
    patchDigest: a.patchDigest,
    dt: 30,
  }];
}

/** The scripted human reads the request and approves this exact patch. */
function fakeApprove(a: ActionOf<"request_approval">): Queued[] {
  return [{
    taskId: a.taskId,
    kind: "approval_granted",
    approvalId: a.approvalId,
    action: a.action,
    patchDigest: a.patchDigest,
    by: "demo-reviewer",
    expiresAt: a.expiresAt,
    dt: 90_000,
  }];
}

function fakeIntegrate(a: ActionOf<"integrate">, world: FakeWorld): Queued[] {
  const { main } = world;
  const tree = worktreeOf(world, a.taskId);
  for (const p of changedPaths(main, tree)) {
    const text = tree.get(p);
    if (text === undefined) main.delete(p);
    else main.set(p, text);
  }
  return [{
    taskId: a.taskId,
    kind: "integrated",
    effectId: a.effectId,
    ok: true,
    commit: sha256Hex([...main.entries()].flat().join("\0")).slice(7, 19),
    dt: 400,
  }];
}

function fakeCleanup(a: ActionOf<"cleanup">, world: FakeWorld): Queued[] {
  world.worktrees.delete(`mem://worktrees/${a.taskId}`);
  return [{ taskId: a.taskId, kind: "cleanup_done", effectId: a.effectId, dt: 50 }];
}

/** What the fake adapters answer an action with. */
function perform(a: KernelAction, world: FakeWorld): Queued[] {
  switch (a.kind) {
    case "create_worktree":
      return fakeCreateWorktree(a, world);
    case "run_backend":
      return fakeRunBackend(a, world);
    case "extract_diff":
      return fakeExtractDiff(a, world);
    case "check_scope":
      return fakeCheckScope(a, world);
    case "run_contract":
      return fakeRunContract(a, world);
    case "mint_verified_patch":
      return fakeMint(a);
    case "request_approval":
      return fakeApprove(a);
    case "integrate":
      return fakeIntegrate(a, world);
    case "cleanup":
      return fakeCleanup(a, world);
    default:
      return []; // append_log, notify, cancel_effect: nothing to fake
  }
}

/** The demo's one task, as submitted. */
function submission(): Queued {
  return {
    kind: "task_submitted",
    taskId: TASK,
    goal: "Make the failing test in math_test.ts pass.",
    baseRev: "main",
    contractDigest: sha256Hex("unit + typecheck"),
    policyDigest: sha256Hex(JSON.stringify(defaultPolicy())),
    policy: null,
    budget: { wallTimeMs: 600_000, repairRounds: 2, outputBytes: 1_000_000, costUnits: 100 },
    dt: 0,
  };
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
  const world: FakeWorld = {
    main: new Map(Object.entries(MAIN_FILES)),
    worktrees: new Map(),
    patch: null,
  };
  const queue: Queued[] = [submission()];
  const events: KernelEvent[] = [];
  const rows: KernelDemoRow[] = [];
  let at = START;
  let task: TaskRecord | null = null;
  while (queue.length > 0 && events.length < 100) {
    const { dt, ...body } = queue.shift()!;
    const seq = events.length + 1;
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
    for (const a of actions) queue.push(...perform(a, world));
  }
  if (task === null) throw new Error("Cannot run demo: the task was never created");
  const main = Object.fromEntries(world.main);
  return { rows, lines: renderRows(rows), events, state, task, main };
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
