import assert from "node:assert/strict";
import { renderProgressLine, renderSummary } from "../../cli/render.ts";
import { roundPrompt } from "../../adapters/driver/round_prompt.ts";
import { RUN_EXIT_CODES, RUN_FINAL_STATES } from "../../adapters/driver/outcome.ts";

Deno.test("RUN_EXIT_CODES: distinct per final state, none is the usage code", () => {
  const codes = RUN_FINAL_STATES.map((s) => RUN_EXIT_CODES[s]);
  assert.equal(new Set(codes).size, codes.length);
  assert.ok(!codes.includes(2));
  assert.equal(RUN_EXIT_CODES.verified, 0);
});

Deno.test("renderProgressLine: phase, round, check and elapsed", () => {
  assert.equal(
    renderProgressLine({ phase: "verify", round: 2, check: "unit", elapsedMs: 12_345 }),
    '[  12.3s] · round 2 · verify · check "unit"',
  );
  assert.match(
    renderProgressLine({ phase: "baseline", round: 0, check: null, elapsedMs: 0 }),
    /setup · baseline/,
  );
});

Deno.test("renderSummary: a table row per round with verdicts and reasons", () => {
  const text = renderSummary({
    task: "t1",
    state: "verified",
    exitCode: 0,
    reason: "verified",
    message: "ok",
    base: "a".repeat(40),
    baseline: [{
      name: "unit",
      passed: false,
      outcome: "failed",
      exitCode: 1,
      durationMs: 1,
      outputTail: "",
    }],
    rounds: [
      {
        round: 1,
        backendStatus: "ok",
        selfClaimedDone: true,
        filesChanged: [],
        verdict: "rejected",
        reasons: ["empty_patch"],
        details: ["the backend changed no file"],
        checks: [],
      },
      {
        round: 2,
        backendStatus: "ok",
        selfClaimedDone: true,
        filesChanged: ["a.ts"],
        verdict: "verified",
        reasons: [],
        details: [],
        checks: [{
          name: "unit",
          passed: true,
          outcome: "pass",
          exitCode: 0,
          durationMs: 5,
          outputTail: "",
        }],
      },
    ],
    patchFile: "/r/.vouch/runs/t1/patch.diff",
    patchDigest: "sha256:" + "0".repeat(64),
    artefactsDir: "/r/.vouch/runs/t1",
    logPath: "/r/.vouch/events.jsonl",
    integrated: null,
    elapsedMs: 4200,
  });
  assert.match(text, /^VERIFIED \(verified\) after 4\.2s/);
  assert.match(text, /1\s+ok\s+yes\s+0\s+rejected\s+empty_patch/);
  assert.match(text, /2\s+ok\s+yes\s+1\s+verified\s+unit:pass/);
  assert.match(text, /patch: {5}\/r\/\.vouch\/runs\/t1\/patch\.diff/);
});

Deno.test("roundPrompt: failing checks with tails, the false claim, baseline failures; bounded", () => {
  const long = "x".repeat(10_000) + "THE END";
  const text = roundPrompt({
    round: 1,
    reasons: ["empty_patch"],
    backend: { selfClaimedDone: true, status: "ok" },
    checks: [
      {
        name: "unit",
        passed: false,
        outcome: "failed",
        exitCode: 1,
        durationMs: 3,
        outputTail: long,
      },
      {
        name: "lint",
        passed: true,
        outcome: "pass",
        exitCode: 0,
        durationMs: 3,
        outputTail: "fine",
      },
    ],
  }, {
    summaries: [{
      name: "unit",
      passed: false,
      outcome: "failed",
      exitCode: 1,
      durationMs: 1,
      outputTail: "",
    }],
  });
  assert.match(text, /You reported the task as done/);
  assert.match(text, /changed no files/);
  assert.match(text, /## unit \(failed, exit 1\)/);
  assert.ok(text.includes("THE END"));
  assert.ok(!text.includes("## lint"));
  assert.match(text, /already failing before any change: unit/);
  assert.ok(text.length < 3000);
});

Deno.test("roundPrompt: a reported failure that changed nothing is told as such, reason code hidden", () => {
  const text = roundPrompt({
    round: 1,
    reasons: ["backend_error_no_change"],
    backend: { selfClaimedDone: false, status: "error" },
    checks: [],
  }, null);
  assert.match(text, /ended with status "error"/);
  assert.match(text, /changed no files/);
  assert.doesNotMatch(text, /Rejection reasons/);
});

Deno.test("renderProgressLine: kernel notifications read as what happened", () => {
  const at = { round: 3, check: null, elapsedMs: 1000 };
  assert.equal(
    renderProgressLine({ ...at, phase: "paused", detail: "budget_repair_rounds" }),
    "[   1.0s] · round 3 · rejected after 3 rounds",
  );
  // A run whose every round was the backend's failure ends backend_failed: said so.
  assert.equal(
    renderProgressLine({ ...at, phase: "paused", detail: "backend_failed" }),
    "[   1.0s] · round 3 · backend failed in all 3 rounds; stopping",
  );
  assert.equal(
    renderProgressLine({ ...at, round: 1, phase: "paused", detail: "backend_failed" }),
    "[   1.0s] · round 1 · backend failed in its only round; stopping",
  );
  assert.match(
    renderProgressLine({ ...at, phase: "paused", detail: "budget_wall_time" }),
    /out of time \(--timeout\); stopping$/,
  );
  assert.equal(
    renderProgressLine({ ...at, phase: "killed", detail: "killed" }),
    "[   1.0s] · round 3 · stopped",
  );
});

Deno.test("renderSummary: a max-rounds rejection says so and shows why with the check's output tail", () => {
  const failing = {
    name: "unit",
    passed: false,
    outcome: "failed",
    exitCode: 1,
    durationMs: 3,
    outputTail: "line 1\nAssertionError: 2 == 1\nexit_nonzero: exited 1, expected 0",
    detail: "exited 1, expected 0; failing tests: math subtracts",
  };
  const round = (n: number) => ({
    round: n,
    backendStatus: "ok",
    selfClaimedDone: true,
    filesChanged: ["a.js"],
    verdict: "rejected" as const,
    reasons: ["checks_failed"],
    details: [`check "unit": ${failing.detail}`],
    checks: [failing],
  });
  const text = renderSummary({
    task: "t2",
    state: "rejected",
    exitCode: 1,
    reason: "max_rounds",
    message: "no round passed verification within 2 round(s)",
    base: "b".repeat(40),
    baseline: [],
    rounds: [round(1), round(2)],
    patchFile: null,
    patchDigest: null,
    artefactsDir: "/r/.vouch/runs/t2",
    logPath: "/r/.vouch/events.jsonl",
    integrated: null,
    elapsedMs: 2000,
  });
  assert.match(text, /^REJECTED after 2 rounds \(2\.0s\): /);
  assert.doesNotMatch(text, /budget_repair_rounds|killed/);
  assert.match(
    text,
    /why \(round 2\):\n {2}check "unit": exited 1, expected 0; failing tests: math subtracts/,
  );
  assert.match(text, /\| AssertionError: 2 == 1/);
});
