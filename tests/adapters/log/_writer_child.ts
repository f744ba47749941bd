// Child process for store_crash_test.ts and store_test.ts: opens the log given
// as the first argument and appends until killed. Mode "batched" writes large
// batches (so SIGKILL can land in the middle of a multi-page write), mode
// "per-record" fsyncs each line. Prints "ready <seq>" once the log is open.
import { EventLog } from "../../../adapters/log/mod.ts";

const [path, mode = "batched", holdMs] = Deno.args;
const log = await EventLog.open(path!, {
  durability: mode === "per-record" ? "per-record" : "batched",
});
await Deno.stdout.write(new TextEncoder().encode(`ready ${log.head.seq}\n`));
if (holdMs !== undefined) {
  await new Promise((resolve) => setTimeout(resolve, Number(holdMs)));
  await log.close();
  Deno.exit(0);
}
// Bounded: after MAX records the writer idles until killed, so a slow parent
// can never make the log grow without limit.
const MAX = 900;
const filler = "x".repeat(300);
for (let n = 0; n < MAX; n++) {
  await log.append({ task: "crash", kind: "demo.step", body: { n, filler } });
  if (mode !== "per-record" && n % 300 === 299) {
    Deno.stdout.writeSync(new TextEncoder().encode("flush\n"));
    await log.flush();
  }
}
await log.flush();
Deno.stdout.writeSync(new TextEncoder().encode("flush\n"));
await new Promise(() => setTimeout(() => {}, 1 << 30));
