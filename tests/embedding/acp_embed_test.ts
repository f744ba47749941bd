/**
 * An embedder hands `runInRepo` an ACP agent through the public API only
 * (`@vouch/vouch` and `@vouch/vouch/backends`): `confinedAgent` around
 * `acpBackend`, real git, real bwrap, the agent a real process speaking ACP
 * (JSON-RPC over stdio: tests/fixtures/acp_agent.mjs, its honest turn reads
 * the file, asks to edit it, writes the fix and runs a terminal, all served by
 * vouch inside the agent's sandbox). Handed over bare, the same backend is
 * refused before it starts.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { confinedAgent, contractFromCommand, isVouchError, runInRepo } from "../../mod.ts";
import { acpBackend, type SandboxProfile } from "../../adapters/backends/mod.ts";
import { NODE } from "../golden/cli_harness.ts";
import { createRepo } from "../golden/fixture_repos.ts";
import { skipReason } from "../redteam/confinement/_harness.ts";

const FIXTURES = fileURLToPath(new URL("../fixtures/", import.meta.url));
const AGENT = join(FIXTURES, "acp_agent.mjs");

const FILES = {
  "src/add.js": "exports.add = (a, b) => a - b;\n",
  "test/add.test.js": [
    'const assert = require("node:assert/strict");',
    'const { add } = require("../src/add.js");',
    "assert.equal(add(2, 3), 5);",
    "",
  ].join("\n"),
};

async function options() {
  const repo = await createRepo(FILES, "node test/add.test.js");
  const root = join(repo.dir, "..");
  return {
    repo,
    base: {
      dir: repo.dir,
      contract: contractFromCommand("node test/add.test.js", 60_000),
      keyEnv: { XDG_STATE_HOME: join(root, "state") },
      goal: "make add add",
      maxRounds: 1,
      wallTimeMs: 180_000,
    },
  };
}

const agent = (sandbox?: SandboxProfile) =>
  acpBackend({
    argv: [NODE!, AGENT],
    env: { VOUCH_ACP_MODE: "honest" },
    ...(sandbox !== undefined ? { sandbox } : {}),
  });

Deno.test({
  name: "embedding: runInRepo + confinedAgent(acpBackend) verifies an ACP agent's fix (bwrap)",
  ignore: NODE === null || skipReason !== null,
  fn: async () => {
    const { repo, base } = await options();
    try {
      const backend = confinedAgent((sandbox) => agent(sandbox), {
        // The agent's program and its runtime, read-only (nothing else of the host is there).
        readOnly: [FIXTURES, dirname(NODE!)],
      });
      const out = await runInRepo({ ...base, backend });
      assert.equal(out.state, "verified", JSON.stringify(out));
      assert.ok(out.verifiedPatch !== null);
      const patch = await Deno.readTextFile(out.patchFile!);
      assert.match(patch, /\+exports\.add = \(a, b\) => a \+ b;/);
    } finally {
      await repo.cleanup();
    }
  },
});

Deno.test({
  name: "embedding: a bare acpBackend is refused by runInRepo (agent_unconfined), nothing started",
  ignore: NODE === null,
  fn: async () => {
    const { repo, base } = await options();
    try {
      const error = await runInRepo({ ...base, backend: agent() }).then(() => null, (e) => e);
      assert.ok(isVouchError(error), String(error));
      assert.equal(error.code, "agent_unconfined");
    } finally {
      await repo.cleanup();
    }
  },
});
