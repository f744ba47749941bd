import assert from "node:assert/strict";
import { runCli } from "../../cli/main.ts";

Deno.test("vouch demo: rejects the false claim, verifies the fix, log verifies and replays", async () => {
  let out = "";
  let err = "";
  const io = {
    out: (t: string) => void (out += t),
    err: (t: string) => void (err += t),
    isTerminal: false,
  };
  const code = await runCli(["demo", "--json"], io);
  assert.equal(code, 0, err);
  const outcome = JSON.parse(out.trim().split("\n").at(-1)!);
  assert.equal(outcome.state, "verified");
  assert.equal(outcome.rounds.length, 2);
  assert.equal(outcome.rounds[0].verdict, "rejected");
  assert.equal(outcome.rounds[0].selfClaimedDone, true);
  assert.equal(outcome.rounds[1].verdict, "verified");
  assert.match(err, /audit {5}VERIFIED {2}log intact/);
  assert.match(err, /receipts {2}ok {8}2\/2 verified/);
  assert.match(err, /patches {3}ok {8}1\/1 verified/);
  assert.match(err, /replay {4}ok {8}\d+ kernel steps reproduce the recorded actions/);
  // No wall-clock bound: on a busy machine any bound is a coin toss (the demo's
  // speed is the benches' business, never a test's).
});

Deno.test("vouch demo --kernel-only: prints the kernel timeline without git or processes", async () => {
  let out = "";
  const io = { out: (t: string) => void (out += t), err: () => {}, isTerminal: false };
  assert.equal(await runCli(["demo", "--kernel-only"], io), 0);
  assert.match(out, /task_submitted/);
  assert.match(out, /verification_result/);
});
