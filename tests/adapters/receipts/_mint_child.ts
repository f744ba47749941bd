// Child process for receipts_test.ts: mints one receipt with the repository key
// from the state directory given in the environment, prints it and exits.
import { loadOrCreateMacKey } from "../../../adapters/keys/mod.ts";
import { mintReceipt } from "../../../adapters/receipts/mod.ts";

const repo = Deno.args[0]!;
const key = await loadOrCreateMacKey({ repoRoot: repo });
const z = { digest: "sha256:" + "a".repeat(64), bytes: 3 };
const receipt = await mintReceipt(key, {
  task: "child",
  tool: "check:unit",
  argv: ["deno", "test"],
  cwd: repo,
  sandboxProfile: "none",
  envNames: ["PATH"],
  startedAt: 1,
  endedAt: 2,
  exit: { code: 0, signal: null, timedOut: false },
  stdout: z,
  stderr: z,
}, { anchor: { seq: 0, hash: "0".repeat(64) }, prevReceipt: "0".repeat(64) });
console.log(JSON.stringify(receipt));
