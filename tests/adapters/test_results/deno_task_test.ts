/**
 * `deno task NAME` checks get deno's junit report only when the BASE's
 * `deno.json(c)` defines the task as one simple `deno test` command, and the
 * tree the check runs in defines it the same way; the flag goes right after
 * `NAME` (deno task appends the words after the name to the task's command).
 * Anything else: no task, no plan (exit-code judgement, as before).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { parseContract } from "../../../adapters/contract/load.ts";
import {
  type CheckRecord,
  type ChecksRun,
  runChecks,
} from "../../../adapters/contract/run_checks.ts";
import { readTests, withDerivedLists } from "../../../adapters/verification/_oracle_grading.ts";
import {
  judgeContract,
  type OutcomeContract,
  reportFromOutcomes,
} from "../../../kernel/contract/mod.ts";
import { denoTaskFor, denoTaskOf } from "../../../adapters/test_results/deno_task.ts";
import {
  denoTaskCall,
  denoTestEnd,
  structuredReportPlan,
} from "../../../adapters/test_results/plan.ts";
import { testFormatOf } from "../../../adapters/verification/_test_reports.ts";

const json = (tasks: unknown) => new Map([["deno.json", JSON.stringify({ tasks })]]);
const task = (configs: ReadonlyMap<string, string>, name = "test") => {
  const r = denoTaskOf(configs, name);
  return r.ok ? r.command : `none: ${r.reason}`;
};

Deno.test("deno task: the base's task is used only when it is one simple deno test", () => {
  assert.equal(task(json({ test: "deno test -A" })), "deno test -A");
  assert.equal(task(json({ test: { command: "deno test", description: "d" } })), "deno test");
  assert.equal(task(json({ test: { command: "deno test", dependencies: [] } })), "deno test");
  assert.equal(task(json({ test: "npx -y deno@2.9.6 test src/" })), "npx -y deno@2.9.6 test src/");
  assert.equal(task(json({ ci: "deno test" }), "ci"), "deno test");
  // JSONC: comments and trailing commas, as deno reads them.
  const jsonc = new Map([[
    "deno.jsonc",
    '{\n  // the suite\n  "tasks": { "test": "deno test", },\n}\n',
  ]]);
  assert.equal(task(jsonc), "deno test");
  // deno reads deno.json when both exist.
  const both = new Map([["deno.json", '{"tasks":{"test":"deno test a"}}'], ...jsonc]);
  assert.equal(task(both), "deno test a");
  for (
    const [configs, why] of [
      [new Map(), /no deno\.json/],
      [new Map([["deno.json", "{ not json"]]), /does not parse/],
      [new Map([["deno.json", '{"tasks":["deno test"]}']]), /no readable tasks/],
      [json({ lint: "deno lint" }), /defines no task test/],
      [json({ test: { command: "deno test", dependencies: ["build"] } }), /dependencies/],
      [json({ test: { command: "deno test", cwd: "sub" } }), /unknown form/],
      [json({ test: { description: "no command" } }), /no command/],
      [json({ test: 42 }), /unknown form/],
      [json({ test: "deno lint && deno test" }), /not one simple/],
      [json({ test: "deno test | tee log" }), /not one simple/],
      [json({ test: "DENO_DIR=/x deno test" }), /not one simple/],
      [json({ test: "deno test $FLAGS" }), /not one simple/],
      [json({ test: "deno test -- --arg" }), /not one simple/],
      // deno task's shell takes `#` for a comment: an appended flag would vanish in it.
      [json({ test: "deno test # the suite" }), /not one simple/],
      [json({ test: "deno task other" }), /not one simple/],
      [json({ test: "deno lint" }), /not one simple/],
      [json({ test: "deno test --junit-path=mine.xml" }), /already asks/],
      [json({ test: "deno test --reporter=junit" }), /already asks/],
    ] as const
  ) {
    assert.match(task(configs), why, JSON.stringify([...configs]));
  }
});

Deno.test("deno task: the tree must define the task as the base does (the patch cannot redefine it)", () => {
  const base = json({ test: "deno test" });
  assert.equal(denoTaskFor(base, base, "test").ok, true);
  // The patch narrows the task, adds a config deno reads first, or deletes the base's.
  const narrowed = json({ test: "deno test mul_test.ts" });
  assert.equal(denoTaskFor(base, narrowed, "test").ok, false);
  const jsoncBase = new Map([["deno.jsonc", '{"tasks":{"test":"deno test"}}']]);
  assert.equal(denoTaskFor(jsoncBase, new Map([...jsoncBase, ...base]), "test").ok, false);
  assert.equal(denoTaskFor(base, new Map(), "test").ok, false);
  // Other edits of the file leave the task as it was.
  const other = new Map([["deno.json", '{ "tasks": { "test": "deno test" }, "lock": false }']]);
  assert.equal(denoTaskFor(base, other, "test").ok, true);
});

Deno.test("deno task plans: --junit-path right after NAME, only for a known simple task", () => {
  const plan = (command: string, known: string | null = "deno test") =>
    structuredReportPlan({
      command,
      format: "deno",
      reportDir: "/r d",
      denoTask: (name) => name === "test" || name === "ci" ? known : null,
    });
  const command = (c: string, known?: string | null) => {
    const r = plan(c, known);
    return r.ok ? r.plan.command ?? "" : `refused: ${r.reason}`;
  };
  const flag = "--junit-path='/r d/vouch-junit.xml'";
  assert.equal(command("deno task test"), `deno task test ${flag}`);
  assert.equal(command("deno task ci calc_test.ts"), `deno task ci ${flag} calc_test.ts`);
  assert.equal(command("'/opt/x y/deno' task test"), `'/opt/x y/deno' task test ${flag}`);
  assert.equal(command("npx -y deno@2.9.6 task test"), `npx -y deno@2.9.6 task test ${flag}`);
  const r = plan("deno task test");
  assert.ok(
    r.ok && r.plan.reader === "junit-deno" && /deno task test \(deno test\)/.test(r.plan.note),
  );
  for (
    const refused of [
      "deno task lint",
      "deno task test && deno lint",
      "deno task test -- --filter x",
      "deno task --cwd sub test",
      "deno task -c other.json test",
      "deno task 'test*'",
      "deno task",
      "deno task test --junit-path=mine.xml",
      "DENO_DIR=/x deno task test",
      "deno -q task test",
    ]
  ) {
    assert.match(command(refused), /^refused: /, refused);
  }
  assert.match(command("deno task test", null), /^refused: task test is not known/);
  // Without the base's tasks (no `denoTask`), a deno task check has no plan, as before.
  const bare = structuredReportPlan({ command: "deno task test", format: "deno", reportDir: "/r" });
  assert.equal(bare.ok, false);
});

Deno.test("property: a simple deno task call gets exactly the flag after its name; anything else none", () => {
  const word = fc.stringMatching(/^[\w@%+=:,./*-]{1,8}$/).filter((w) => w !== "--");
  const name = fc.stringMatching(/^\w[\w:.-]{0,6}$/);
  fc.assert(
    fc.property(
      name,
      fc.array(word, { maxLength: 4 }),
      fc.constantFrom(" ", "  "),
      (n, args, gap) => {
        const head = `deno${gap}task${gap}${n}`;
        const command = [head, ...args].join(gap);
        assert.deepEqual(denoTaskCall(command), { name: n, end: head.length });
        const p = structuredReportPlan({
          command,
          format: "deno",
          reportDir: "/r",
          denoTask: (x) => x === n ? "deno test" : null,
        });
        assert.ok(p.ok);
        assert.equal(
          p.plan.command,
          `${head} --junit-path=/r/vouch-junit.xml${command.slice(head.length)}`,
        );
      },
    ),
  );
  fc.assert(
    fc.property(fc.string({ maxLength: 40 }), fc.string({ maxLength: 40 }), (command, text) => {
      const call = denoTaskCall(command);
      if (call !== null) {
        assert.ok(call.end > 0 && call.end <= command.length);
        assert.ok(command.slice(0, call.end).endsWith(call.name));
      }
      // Any config text: a task or a reason, never a throw; a task is always one deno test.
      const got = denoTaskOf(new Map([["deno.json", text]]), "test");
      if (got.ok) assert.notEqual(denoTestEnd(got.command), null);
      const tasked = denoTaskOf(json({ test: text }), "test");
      if (tasked.ok) {
        assert.notEqual(denoTestEnd(text), null);
        assert.ok(!/(?:^|\s)--(?:\s|$)|#|&&|\|/.test(text), text);
      }
    }),
  );
});

Deno.test("deno task: the test format of `deno task ci` comes from the base's task", () => {
  const parsed = parseContract({ checks: [{ name: "t", run: "deno task ci" }] });
  if (!parsed.ok) throw parsed.error;
  const check = parsed.contract.checks[0]!;
  assert.equal(testFormatOf(check), null);
  assert.equal(testFormatOf(check, json({ ci: "deno test" })), "deno");
  assert.equal(testFormatOf(check, json({ ci: "deno lint" })), null);
});

function runOf(c: OutcomeContract, r: CheckRecord): ChecksRun {
  const record = { ...r, check: c.checks[0]! };
  return {
    records: [record],
    observations: [record.observation],
    results: new Map(),
    started: new Map(),
    sandbox: { kind: "none" },
  };
}

Deno.test("runChecks: a deno task check is planned from the base's task, never from a tree that redefines it", async () => {
  const dir = await mkdtemp(join(tmpdir(), "vouch-deno-task-"));
  try {
    const deno = Deno.execPath();
    await writeFile(join(dir, "a_test.ts"), 'Deno.test("a", () => {});\n');
    const parsed = parseContract({ checks: [{ name: "t", run: [deno, "task", "test"] }] });
    if (!parsed.ok) throw parsed.error;
    const base = json({ test: "deno test --no-check" });
    const run = (tree: string) =>
      writeFile(join(dir, "deno.json"), tree).then(() =>
        runChecks(parsed.contract, {
          cwd: dir,
          sandbox: { kind: "none" },
          phase: "round",
          reportFormat: () => "deno",
          denoConfigs: base,
        })
      );
    const same = (await run(base.get("deno.json")!)).records[0]!;
    assert.equal(same.observation.exitCode, 0, same.observation.stderr);
    assert.equal(same.reportPlanned, true);
    assert.deepEqual(same.structured?.outcomes.map((o) => [o.id, o.status]), [["a", "passed"]]);
    // The tree's deno.json now runs another command: vouch never adopts it, and asks for no
    // report; the record says none came, so its text is not read per test either.
    const redefined = (await run('{"tasks":{"test":"deno test --no-check a_test.ts"}}'))
      .records[0]!;
    assert.equal(redefined.observation.exitCode, 0);
    assert.equal(redefined.reportPlanned, true);
    assert.equal(redefined.structured, null);
    assert.doesNotMatch(redefined.observation.stderr, /--junit-path/);
    const lists = reportFromOutcomes([{ id: "a", status: "passed" }]);
    const derived = withDerivedLists(parsed.contract, new Map([["t", lists]]), base);
    const judged = judgeContract(derived, readTests(derived, runOf(derived, redefined)), []);
    assert.equal(judged.verdict, "failed");
    assert.match(judged.checks[0]!.reasons.map((r) => r.message).join("; "), /"a" \(missing\)/);
    // A base whose task is not one deno test: no plan and nothing withheld, as before.
    const otherBase = json({ test: "deno lint && deno test --no-check" });
    const plain = (await runChecks(parsed.contract, {
      cwd: dir,
      sandbox: { kind: "none" },
      phase: "round",
      reportFormat: () => "deno",
      denoConfigs: otherBase,
    })).records[0]!;
    assert.equal(plain.reportPlanned, undefined);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
