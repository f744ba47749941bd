import assert from "node:assert/strict";
import { parseRunArgs } from "../../cli/commands/run_args.ts";
import { runCommand } from "../../cli/commands/run.ts";
import { verifyCommand } from "../../cli/commands/verify.ts";

Deno.test("vouch run: --allow-setup-network is off by default and parsed when given", () => {
  assert.equal(parseRunArgs(["--goal", "g", "--verify", "true"]).allowSetupNetwork, false);
  assert.equal(
    parseRunArgs(["--goal", "g", "--contract", "c.json", "--allow-setup-network"])
      .allowSetupNetwork,
    true,
  );
  assert.throws(() => parseRunArgs(["--goal", "g", "--allow-setup-network=yes"]));
});

Deno.test("vouch run / verify --help document --allow-setup-network and its refusal code", () => {
  for (const help of [runCommand.help, verifyCommand.help]) {
    assert.match(help, /--allow-setup-network/);
    assert.match(help, /setup_network_not_allowed/);
  }
});
