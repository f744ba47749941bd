/**
 * Model-based test: `fc.commands` drives the real reducer (through the
 * harness) and a deliberately simple model of the lifecycle side by side;
 * after every command the task's status and round must agree, and so must the
 * reason a repair round gives (a backend's "I failed" is a claim: its real diff
 * is still extracted; only an empty one makes the round a failed one).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import type { LifecycleReason, TaskStatus } from "../../../kernel/lifecycle/mod.ts";
import { BIG_BUDGET, Sim } from "./harness.ts";

interface ModelTask {
  status: TaskStatus;
  round: number;
  maxRounds: number;
  baselineDone: boolean;
  resumeTo: TaskStatus | null;
  /** What the backend last claimed. */
  claimed: Outcome | null;
  /** Why the current round runs. */
  roundReason: LifecycleReason | null;
}

type Outcome = "ok" | "error" | "timed_out";

type Model = Map<string, ModelTask>;

let reachedEnd = 0;

const TERMINAL = new Set<TaskStatus>(["completed", "rejected", "failed", "killed"]);

function check(model: Model, sim: Sim, id: string): void {
  const m = model.get(id)!;
  const t = sim.task(id);
  assert.equal(t.status, m.status, `status of ${id}`);
  if (!TERMINAL.has(m.status)) assert.equal(t.round, m.round, `round of ${id}`);
  if (!TERMINAL.has(m.status)) assert.equal(t.roundReason, m.roundReason, `round reason of ${id}`);
}

/** Model of "a new round starts": over the round budget it pauses instead. */
function repair(m: ModelTask, reason: LifecycleReason): void {
  m.round++;
  m.roundReason = reason;
  if (m.round > m.maxRounds) {
    m.status = "paused";
    m.resumeTo = "worktree_ready";
  } else {
    m.status = "worktree_ready";
  }
}

abstract class TaskCmd implements fc.Command<Model, Sim> {
  constructor(readonly id: string) {}
  abstract allowed(m: ModelTask): boolean;
  abstract apply(m: ModelTask, sim: Sim): void;
  check(model: Readonly<Model>): boolean {
    const m = model.get(this.id);
    return m !== undefined && this.allowed(m);
  }
  run(model: Model, sim: Sim): void {
    this.apply(model.get(this.id)!, sim);
    check(model, sim, this.id);
  }
  toString(): string {
    return `${this.constructor.name}(${this.id})`;
  }
}

class Submit implements fc.Command<Model, Sim> {
  constructor(readonly id: string, readonly maxRounds: number) {}
  check(model: Readonly<Model>): boolean {
    return !model.has(this.id);
  }
  run(model: Model, sim: Sim): void {
    sim.submit(this.id, { ...BIG_BUDGET, repairRounds: this.maxRounds });
    model.set(this.id, {
      status: "submitted",
      round: 0,
      maxRounds: this.maxRounds,
      baselineDone: false,
      resumeTo: null,
      claimed: null,
      roundReason: null,
    });
    check(model, sim, this.id);
  }
  toString(): string {
    return `Submit(${this.id}, rounds=${this.maxRounds})`;
  }
}

class WorktreeReady extends TaskCmd {
  allowed = (m: ModelTask) => m.status === "submitted";
  apply(m: ModelTask, sim: Sim): void {
    sim.worktreeReady(this.id);
    m.status = "baselining";
  }
}

class BackendStarted extends TaskCmd {
  allowed = (m: ModelTask) => m.status === "worktree_ready";
  apply(m: ModelTask, sim: Sim): void {
    sim.backendStarted(this.id);
    m.status = "backend_running";
  }
}

class BackendFinished extends TaskCmd {
  constructor(id: string, readonly outcome: Outcome) {
    super(id);
  }
  allowed = (m: ModelTask) => m.status === "worktree_ready" || m.status === "backend_running";
  apply(m: ModelTask, sim: Sim): void {
    sim.backendFinished(this.id, this.outcome);
    m.claimed = this.outcome;
    // "ok" and "error" are claims about finished work: the real diff is extracted either way.
    if (this.outcome === "timed_out") repair(m, "backend_failed");
    else m.status = "extracting";
  }
  override toString(): string {
    return `BackendFinished(${this.id}, ${this.outcome})`;
  }
}

class Patch extends TaskCmd {
  constructor(id: string, readonly empty: boolean) {
    super(id);
  }
  allowed = (m: ModelTask) => m.status === "extracting";
  apply(m: ModelTask, sim: Sim): void {
    sim.patch(this.id, "sha256:p", this.empty ? 0 : 2);
    if (this.empty) repair(m, m.claimed === "error" ? "backend_error_no_change" : "empty_patch");
    else m.status = "patch_proposed";
  }
  override toString(): string {
    return `Patch(${this.id}, empty=${this.empty})`;
  }
}

class Scope extends TaskCmd {
  constructor(id: string, readonly accept: boolean) {
    super(id);
  }
  allowed = (m: ModelTask) => m.status === "patch_proposed";
  apply(m: ModelTask, sim: Sim): void {
    sim.scope(this.id, this.accept ? "accept" : "reject", [], this.accept ? [] : ["escape"]);
    // "escape" is not a path-rule violation: never a repair round (transitions_test has those).
    m.status = this.accept ? "verifying" : "rejected";
  }
  override toString(): string {
    return `Scope(${this.id}, accept=${this.accept})`;
  }
}

class Baseline extends TaskCmd {
  allowed = (m: ModelTask) => m.status === "baselining";
  apply(m: ModelTask, sim: Sim): void {
    sim.baseline(this.id);
    m.baselineDone = true;
    m.status = "worktree_ready";
  }
}

class Verify extends TaskCmd {
  constructor(id: string, readonly pass: boolean) {
    super(id);
  }
  allowed = (m: ModelTask) => m.status === "verifying";
  apply(m: ModelTask, sim: Sim): void {
    sim.verify(this.id, this.pass);
    if (this.pass) m.status = "verified";
    else repair(m, "verification_failed");
  }
  override toString(): string {
    return `Verify(${this.id}, pass=${this.pass})`;
  }
}

class Mint extends TaskCmd {
  allowed = (m: ModelTask) => m.status === "verified";
  apply(m: ModelTask, sim: Sim): void {
    sim.mint(this.id);
    m.status = "awaiting_approval";
  }
}

class Approve extends TaskCmd {
  allowed = (m: ModelTask) => m.status === "awaiting_approval";
  apply(m: ModelTask, sim: Sim): void {
    sim.approve(this.id);
    m.status = "integrating";
  }
}

class Deny extends TaskCmd {
  allowed = (m: ModelTask) => m.status === "awaiting_approval";
  apply(m: ModelTask, sim: Sim): void {
    sim.deny(this.id);
    m.status = "rejected";
  }
}

class Integrated extends TaskCmd {
  constructor(id: string, readonly ok: boolean) {
    super(id);
  }
  allowed = (m: ModelTask) => m.status === "integrating";
  apply(m: ModelTask, sim: Sim): void {
    sim.integrated(this.id, this.ok);
    m.status = this.ok ? "completed" : "failed";
    reachedEnd++;
  }
  override toString(): string {
    return `Integrated(${this.id}, ${this.ok})`;
  }
}

class Kill extends TaskCmd {
  allowed = () => true;
  apply(m: ModelTask, sim: Sim): void {
    sim.send({ kind: "kill_requested", taskId: this.id, by: "bob" });
    if (!TERMINAL.has(m.status)) m.status = "killed";
  }
}

class AddRound extends TaskCmd {
  allowed = () => true;
  apply(m: ModelTask, sim: Sim): void {
    sim.send({
      kind: "budget_extended",
      taskId: this.id,
      add: { wallTimeMs: 0, repairRounds: 1, outputBytes: 0, costUnits: 0 },
    });
    if (TERMINAL.has(m.status)) return;
    m.maxRounds++;
    if (m.status === "paused" && m.round <= m.maxRounds) {
      m.status = m.resumeTo!;
      m.resumeTo = null;
    }
  }
}

class Tick extends TaskCmd {
  allowed = () => true;
  apply(_m: ModelTask, sim: Sim): void {
    // well inside the wall-time budget: nothing changes
    sim.send({ kind: "timer_tick", taskId: this.id }, 1);
  }
}

/** The next cooperative step for the task (keeps runs long enough to finish tasks). */
class Advance extends TaskCmd {
  constructor(id: string, readonly pass: boolean) {
    super(id);
  }
  allowed = () => true;
  apply(m: ModelTask, sim: Sim): void {
    const id = this.id;
    const next: Record<string, TaskCmd> = {
      submitted: new WorktreeReady(id),
      baselining: new Baseline(id),
      worktree_ready: new BackendFinished(id, "ok"),
      backend_running: new BackendFinished(id, "ok"),
      extracting: new Patch(id, false),
      patch_proposed: new Scope(id, true),
      verifying: new Verify(id, this.pass),
      verified: new Mint(id),
      awaiting_approval: new Approve(id),
      integrating: new Integrated(id, true),
      paused: new AddRound(id),
    };
    (next[m.status] ?? new Tick(id)).apply(m, sim);
  }
  override toString(): string {
    return `Advance(${this.id}, pass=${this.pass})`;
  }
}

const ids = fc.constantFrom("a", "b", "c");
const advance = fc.tuple(ids, fc.boolean()).map(([id, p]) => new Advance(id, p));
const allCommands = [
  fc.tuple(ids, fc.nat({ max: 2 })).map(([id, r]) => new Submit(id, r)),
  ids.map((id) => new WorktreeReady(id)),
  ids.map((id) => new BackendStarted(id)),
  fc.tuple(ids, fc.constantFrom<Outcome>("ok", "error", "timed_out")).map(([id, o]) =>
    new BackendFinished(id, o)
  ),
  fc.tuple(ids, fc.boolean()).map(([id, e]) => new Patch(id, e)),
  fc.tuple(ids, fc.boolean()).map(([id, a]) => new Scope(id, a)),
  ids.map((id) => new Baseline(id)),
  fc.tuple(ids, fc.boolean()).map(([id, p]) => new Verify(id, p)),
  ids.map((id) => new Mint(id)),
  ids.map((id) => new Approve(id)),
  ids.map((id) => new Deny(id)),
  fc.tuple(ids, fc.boolean()).map(([id, ok]) => new Integrated(id, ok)),
  ids.map((id) => new Kill(id)),
  ids.map((id) => new AddRound(id)),
  ids.map((id) => new Tick(id)),
  ...Array.from({ length: 16 }, () => advance),
];

Deno.test("model-based: the reducer agrees with a simple lifecycle model", () => {
  fc.assert(
    fc.property(fc.commands(allCommands, { maxCommands: 80, size: "max" }), (cmds) => {
      fc.modelRun(() => ({ model: new Map(), real: new Sim() }), cmds);
    }),
    { numRuns: 200 },
  );
  assert.ok(reachedEnd >= 3, `only ${reachedEnd} integrations exercised`);
});
