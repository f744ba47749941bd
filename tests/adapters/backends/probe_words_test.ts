/**
 * An agent CLI whose `--version` fails says why: the last line it wrote on
 * stderr follows the exit code in the preflight's reason (masked, one line),
 * as a failed round's does (`stderrCause`), so "the backend cannot start:
 * codex: `--version` exited 1" is not all a user (or a CI log) gets.
 */
import assert from "node:assert/strict";
import { probeAgentCli } from "../../../adapters/backends/probe.ts";

Deno.test("preflight: a failing --version's last stderr line is in the reason, masked", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vouch-probe-" });
  try {
    const cli = `${dir}/codex`;
    await Deno.writeTextFile(
      cli,
      "#!/bin/sh\necho first >&2\necho 'Error: cannot load config (GITHUB_TOKEN=ghp_0123456789abcdefghijklmnopqrstuv)' >&2\necho >&2\nexit 1\n",
    );
    await Deno.chmod(cli, 0o755);
    const probe = await probeAgentCli("codex", cli);
    assert.equal(probe.available, false);
    assert.match(probe.reason!, /^`--version` exited 1: Error: cannot load config \(/);
    assert.doesNotMatch(probe.reason!, /ghp_0123/, "the token is masked");
    assert.doesNotMatch(probe.reason!, /first|\n/, "one line");

    await Deno.writeTextFile(cli, "#!/bin/sh\nexit 3\n");
    assert.equal((await probeAgentCli("codex", cli)).reason, "`--version` exited 3");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
