// Child process for store_crash_test.ts and store_test.ts: opens the log given
// as the first argument and appends until killed. Mode "batched" writes large
// batches (so SIGKILL can land in the middle of a multi-page write), mode
// "per-record" fsyncs each line. Mode "split" holds the lock through EventLog
// but writes each framed line in two write() calls with a pause between them,
// like a file system doing short writes, so a kill often lands mid-record.
// Prints "ready <seq>" once the log is open.
import { EventLog, type LogHead } from "../../../adapters/log/mod.ts";
import { frameRecord } from "../../../adapters/log/record.ts";

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
if (mode === "split") {
  const file = await Deno.open(path!, { append: true });
  const encoder = new TextEncoder();
  let head: LogHead = log.head;
  for (let n = 0; n < 2000; n++) {
    const { record, line } = frameRecord(
      head,
      { task: "crash", kind: "demo.step", body: { n } },
      n,
    );
    head = record;
    const bytes = encoder.encode(line + "\n");
    const cut = 1 + (n * 7919) % (bytes.length - 1);
    await file.write(bytes.subarray(0, cut));
    await new Promise((resolve) => setTimeout(resolve, 1));
    await file.write(bytes.subarray(cut));
  }
  await new Promise(() => setTimeout(() => {}, 1 << 30));
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
