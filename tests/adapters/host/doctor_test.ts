import assert from "node:assert/strict";
import { doctorCommand } from "../../../cli/commands/doctor.ts";
import { gitVersionOk } from "../../../adapters/host/doctor.ts";

function bufferIo() {
  let out = "";
  let err = "";
  return {
    io: {
      out: (t: string) => void (out += t),
      err: (t: string) => void (err += t),
      isTerminal: false,
    },
    get out() {
      return out;
    },
    get err() {
      return err;
    },
  };
}

Deno.test("vouch doctor --json reports real probes", async () => {
  const b = bufferIo();
  const code = await doctorCommand.run(["--json"], b.io);
  const report = JSON.parse(b.out);
  assert.equal(report.git.ok, true);
  assert.match(report.git.detail, /^git version/);
  assert.equal(report.processGroups.ok, true);
  assert.equal(typeof report.sandbox.bwrap.available, "boolean");
  assert.equal(report.recommendedSandbox, report.sandbox.bwrap.available ? "bwrap" : "none");
  if (!report.sandbox.bwrap.available) assert.ok(report.sandbox.bwrap.reason);
  assert.equal(code, report.ok ? 0 : 1);
  // The default requires the sandbox: a machine without a working bwrap is not ok.
  assert.equal(
    report.ok,
    report.git.ok && report.processGroups.ok && report.sandbox.bwrap.available,
  );
  assert.ok(Array.isArray(report.sandboxToolchains));
  for (const dir of report.sandboxToolchains) assert.ok(dir.startsWith("/") && dir !== "/", dir);
  assert.deepEqual(report.agents.map((a: { name: string }) => a.name), ["codex", "claude"]);
  for (const agent of report.agents) {
    assert.equal(typeof agent.available, "boolean");
    if (!agent.available) assert.ok(agent.reason, "a missing agent CLI says why");
  }
});

Deno.test("vouch doctor text output and usage errors", async () => {
  const b = bufferIo();
  await doctorCommand.run([], b.io);
  assert.match(b.out, /git +git version/);
  // Either the sandbox works (and the toolchains it shows are listed) or the report says runs stop.
  assert.match(b.out, /checks and agents see system dirs|will stop \(exit 5\)/);
  await assert.rejects(() => doctorCommand.run(["extra"], bufferIo().io));
});

Deno.test("git version gate", () => {
  for (
    const ok of [
      "git version 2.39.2",
      "git version 2.40.0",
      "git version 3.0",
      "git version 2.45.1.windows.1",
    ]
  ) {
    assert.ok(gitVersionOk(ok), ok);
  }
  for (const bad of ["git version 2.39.1", "git version 2.30.9", "git version 1.9.9", ""]) {
    assert.ok(!gitVersionOk(bad), bad);
  }
});
