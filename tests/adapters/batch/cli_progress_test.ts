import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "../../../cli/main.ts";
import { makeCohort } from "./_cohort.ts";

Deno.test("vouch batch on a terminal redraws one progress bar with counts and an ETA", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vouch-batch-tty-" });
  const saved = Deno.env.get("XDG_STATE_HOME");
  Deno.env.set("XDG_STATE_HOME", join(dir, "state"));
  try {
    const cohort = await makeCohort(dir, { node: 1, deno: 0, kinds: ["good", "noop", "empty"] });
    let err = "";
    let out = "";
    const code = await runCli([
      "batch",
      "--tasks",
      cohort.tasksFile,
      "--predictions",
      cohort.predictionsFile,
      "--out",
      join(dir, "out"),
    ], { out: (t) => void (out += t), err: (t) => void (err += t), isTerminal: true });
    assert.equal(code, 0, err);
    const frames = err.split("\r\x1b[2K").slice(1);
    assert.equal(frames.length, 3);
    assert.match(frames[0]!, /^\[#+\.*\] 1\/3 resolved \d unresolved \d error 0 empty \d \| ETA /);
    assert.match(
      frames[2]!,
      /^\[#{24}\] 3\/3 resolved 1 unresolved 1 error 0 empty 1 \| ETA 0s\n$/,
    );
    assert.doesNotMatch(err, /^\[\d+\/3\] /m, "no per-candidate lines on a terminal");
    assert.match(out, /resolved 1\/3, unresolved 1, error 0, empty patch 1/);
  } finally {
    if (saved === undefined) Deno.env.delete("XDG_STATE_HOME");
    else Deno.env.set("XDG_STATE_HOME", saved);
    await Deno.remove(dir, { recursive: true });
  }
});
