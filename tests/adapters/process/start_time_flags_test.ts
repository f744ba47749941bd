/**
 * A process's start time is read under the CLI's own Deno flags too. Deno asks
 * `--allow-all` for any `/proc/<pid>/*` read in-process, which the CLI does not
 * have: before, every start time read by `vouch` itself was null, so the event
 * log's lock and `vouch gc` could not tell a live owner from a later process
 * that reused its pid (a dead writer's lock whose pid a new process got was
 * then taken as held).
 */
import assert from "node:assert/strict";
import { hostname } from "node:os";
import { processStartTime } from "../../../adapters/process/start_time.ts";
import { runAsVouch } from "../../golden/cli_harness.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;
const linux = Deno.build.os === "linux";

Deno.test({
  name:
    "start time: read under the CLI's flags as in-process with -A; a reused pid's lock is stale",
  ignore: !linux,
  fn: async () => {
    const r = await runAsVouch(
      `import { processStartTime } from "${ROOT}adapters/process/start_time.ts";
import { bootId, isStaleOwner } from "${ROOT}adapters/log/lock.ts";
const parent = Number(Deno.args[0]);
const host = ${JSON.stringify(hostname())};
console.log(JSON.stringify({
  parent: processStartTime(parent),
  gone: processStartTime(2 ** 22 + 1),
  reused: isStaleOwner({ pid: parent, host, start: "1", boot: bootId() }),
  live: isStaleOwner({ pid: parent, host, start: processStartTime(parent), boot: bootId() }),
}));
`,
      [String(Deno.pid)],
    );
    assert.equal(r.code, 0, r.stderr);
    const seen = JSON.parse(r.stdout);
    assert.equal(seen.parent, processStartTime(Deno.pid), "the same start time either way");
    assert.notEqual(seen.parent, null);
    assert.equal(seen.gone, null);
    assert.equal(seen.reused, true, "a lock whose pid now has another start time is stale");
    assert.equal(seen.live, false, "a live owner's lock is never stale");
  },
});
