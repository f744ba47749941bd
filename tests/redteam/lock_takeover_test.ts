/**
 * Red team (issue #20 §3): a SIGKILLed run's log lock must not hold forever
 * under the CLI's own Deno flags. Deno refuses `/proc/<pid>` there ("Requires
 * all access"), so an owner check that read it saw every owner as alive and
 * every later run exited 5 `locked`. Here a writer started with exactly the
 * `deno task vouch` flags takes the lock and is SIGKILLed; the next writer,
 * under the same flags, takes the lock over (it reports the stale lock broken)
 * while a live writer's lock still refuses it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { VOUCH_TASK_FLAGS } from "../golden/cli_harness.ts";

const CHILD = new URL("../adapters/log/_writer_child.ts", import.meta.url).pathname;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;
const OPENER = `import { EventLog } from ${
  JSON.stringify(
    new URL("../../adapters/log/mod.ts", import.meta.url).href,
  )
};
try {
  const log = await EventLog.open(Deno.args[0]);
  console.log("opened", log.openReport.brokeStaleLock !== null);
  await log.close();
} catch (e) {
  console.log("refused", e.code);
}`;

function writer(path: string): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", ...VOUCH_TASK_FLAGS, "--config", CONFIG, CHILD, path, "per-record", "600000"],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
}

async function firstLine(child: Deno.ChildProcess): Promise<string> {
  const reader = child.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return text.split("\n")[0]!;
}

async function open(dir: string, path: string): Promise<string> {
  const script = join(dir, "open.ts");
  await Deno.writeTextFile(script, OPENER);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...VOUCH_TASK_FLAGS, "--config", CONFIG, script, path],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  assert.equal(out.code, 0, text + new TextDecoder().decode(out.stderr));
  return text;
}

Deno.test("red team: under the CLI's flags a SIGKILLed writer's log lock is taken over, a live one's is not", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vouch-redteam-lock-" });
  try {
    const path = join(dir, "events.jsonl");
    const live = writer(path);
    assert.match(await firstLine(live), /^ready /);
    assert.equal(await open(dir, path), "refused locked", "a live writer's lock must hold");
    live.kill("SIGKILL");
    await live.status;
    await live.stdout.cancel().catch(() => {});
    assert.equal(await open(dir, path), "opened true", "a dead writer's lock must be taken over");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
