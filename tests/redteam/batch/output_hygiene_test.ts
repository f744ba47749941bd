/**
 * Red team for human output: agent and worker text (model names, test ids,
 * transcript lines, backend messages) carrying terminal escapes (ESC[2J
 * clears the screen, OSC 8 hides a link, BEL, CR overwrites a line) and raw
 * HTML (`<script>`). Every human output shows them escaped; `report.md` has no
 * raw HTML; `--json` and `report.json` keep the exact bytes.
 *
 * - `vouch batch` (the CLI as users run it): its per-candidate progress lines,
 *   `report.md`, and `report.json` / `--json`.
 * - `vouch run --progress plain`'s sink for backend events and phase lines.
 * - `vouch inspect` of a real log whose transcript carries the escapes.
 * - `vouch evaluate` of a bundle whose manifest's worker id carries them.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { BatchReport } from "../../../adapters/batch/mod.ts";
import { LOG_KINDS } from "../../../adapters/log/mod.ts";
import { EventLog } from "../../../adapters/log/mod.ts";
import { progressSink } from "../../../cli/commands/run_progress.ts";
import { runCli } from "../../../cli/main.ts";
import { makeCohort } from "../../adapters/batch/_cohort.ts";
import { BUNDLE_FIXTURES, materializeFixture } from "../bundles/fixtures.ts";
import { bufferIo, buildLogFixture } from "../../cli/_log_fixture.ts";
import { VOUCH_TASK_FLAGS } from "../../golden/cli_harness.ts";

const MAIN = new URL("../../../cli/main.ts", import.meta.url).pathname;
const CONFIG = new URL("../../../deno.json", import.meta.url).pathname;

const EVIL =
  "\x1b[2J\x1b]8;;http://evil.example\x07click\x1b]8;;\x07\rOK\x07<script>alert(1)</script>";
// deno-lint-ignore no-control-regex
const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

Deno.test("red team: escapes and HTML in model names and test ids stay inert in batch output", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vouch-redteam-hygiene-" });
  try {
    const cohort = await makeCohort(dir, { node: 1, deno: 0, kinds: ["good", "noop"] });
    // The models name themselves; the task's failToPass test id carries the payload too.
    const preds = JSON.parse(await Deno.readTextFile(cohort.predictionsFile)) as {
      model_name_or_path: string;
    }[];
    preds.forEach((p, i) => (p.model_name_or_path = `${EVIL}-${i}`));
    await Deno.writeTextFile(cohort.predictionsFile, JSON.stringify(preds));
    const lines = (await Deno.readTextFile(cohort.tasksFile)).trim().split("\n").map((l) => {
      const t = JSON.parse(l);
      t.verify.failToPass = [...t.verify.failToPass, `adds ${EVIL}`];
      return JSON.stringify(t);
    });
    await Deno.writeTextFile(cohort.tasksFile, lines.join("\n") + "\n");
    const env = { ...Deno.env.toObject(), XDG_STATE_HOME: join(dir, "state"), NO_COLOR: "1" };
    const batch = (...extra: string[]) =>
      new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          ...VOUCH_TASK_FLAGS,
          "--config",
          CONFIG,
          MAIN,
          "batch",
          "--tasks",
          cohort.tasksFile,
          "--predictions",
          cohort.predictionsFile,
          "--out",
          join(dir, "out"),
          "--sandbox",
          "none",
          ...extra,
        ],
        env,
        stdin: "null",
      }).output();
    const out = await batch();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    // Progress (one line per candidate off a terminal): the payload shown, not acted on.
    const progress = stderr.split("\n").filter((l) => l.startsWith("["));
    assert.equal(progress.length, 2, stderr);
    for (const l of progress) {
      assert.doesNotMatch(l, RAW, JSON.stringify(l));
      assert.ok(l.includes("\\x1b[2J") && l.includes("\\x1b]8;;http://evil.example\\x07"), l);
      assert.ok(l.includes("\\r"), l);
    }
    // report.md: no control characters, no raw HTML.
    const md = await Deno.readTextFile(join(dir, "out", "report.md"));
    assert.doesNotMatch(md, RAW);
    assert.doesNotMatch(md, /<script/i);
    assert.ok(md.includes("&lt;script&gt;"), md);
    // JSON stays exact: the same bytes the predictions had.
    const report: BatchReport = JSON.parse(
      await Deno.readTextFile(join(dir, "out", "report.json")),
    );
    // --json (everything is judged now, so this run only reads the store).
    const again = await batch("--json");
    assert.equal(again.code, 0);
    const printed = JSON.parse(new TextDecoder().decode(again.stdout));
    for (const r of [report, printed]) {
      assert.deepEqual(
        r.candidates.map((c: { model_name_or_path: string }) => c.model_name_or_path).sort(),
        [`${EVIL}-0`, `${EVIL}-1`],
      );
      assert.ok(
        r.candidates.some((c: BatchReport["candidates"][number]) =>
          c.tests.some((t) => t.id === `adds ${EVIL}`)
        ),
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("red team: agent messages and commands with escapes are shown escaped in run progress", () => {
  for (const isTerminal of [false, true]) {
    const err: string[] = [];
    const io = { out: () => {}, err: (t: string) => err.push(t), isTerminal };
    const sink = progressSink("plain", io, "claude", () => 1200);
    sink.onBackendEvent({ kind: "message", text: EVIL }, 1);
    sink.onBackendEvent({ kind: "command", command: EVIL, exitCode: 1, status: "failed" }, 1);
    sink.onBackendEvent({ kind: "error", message: EVIL, fatal: false }, 1);
    sink.onProgress({ round: 1, phase: "verify", check: EVIL, elapsedMs: 1, detail: EVIL });
    const text = err.join("")
      // the sink's own redraw on a terminal (CR + erase line) is the only control it writes
      .replaceAll("\r\x1b[2K", "").replaceAll("\n", "");
    assert.doesNotMatch(text, RAW, JSON.stringify(text));
    assert.ok(text.includes("\\x1b[2J"), text);
  }
});

Deno.test("red team: vouch inspect shows a transcript's escapes escaped; --json keeps them", async () => {
  const fx = await buildLogFixture();
  try {
    const log = await EventLog.open(fx.logPath);
    await log.append({
      task: "t1",
      kind: LOG_KINDS.transcript,
      body: { round: 1, stream: "stdout", text: EVIL },
    });
    const saved = Deno.env.get("XDG_STATE_HOME");
    Deno.env.set("XDG_STATE_HOME", fx.state);
    try {
      const human = bufferIo();
      await runCli(["inspect", fx.logPath], human.io);
      assert.doesNotMatch(human.out, RAW, human.out);
      assert.ok(human.out.includes("\\x1b[2J"), human.out);
      const json = bufferIo();
      await runCli(["inspect", fx.logPath, "--json"], json.io);
      assert.ok(json.out.length > 0);
      assert.doesNotThrow(() => JSON.parse(json.out));
    } finally {
      if (saved === undefined) Deno.env.delete("XDG_STATE_HOME");
      else Deno.env.set("XDG_STATE_HOME", saved);
    }
  } finally {
    await fx.cleanup();
  }
});

Deno.test("red team: vouch evaluate shows a manifest's escapes escaped; --json keeps them", async () => {
  const base = await Deno.makeTempDir({ prefix: "vouch-redteam-hygiene-evaluate-" });
  try {
    const good = BUNDLE_FIXTURES.find((f) => f.name === "good")!;
    // The worker names itself in the manifest (bundle-author text, shown in the summary line).
    const worker = `w${EVIL}`;
    const paths = await materializeFixture({
      ...good,
      name: "evil-worker-id",
      manifest: (m) => {
        good.manifest?.(m);
        m.worker.id = worker;
      },
    }, base);
    const args = [
      "evaluate",
      "--bundle",
      paths.bundleDir,
      "--work-unit",
      paths.workUnitPath,
      "--plan",
      paths.planPath,
    ];
    const human = bufferIo();
    await runCli(args, human.io);
    assert.doesNotMatch(human.out, RAW, human.out);
    assert.ok(human.out.includes("worker: w\\x1b[2J"), human.out);
    const json = bufferIo();
    await runCli([...args, "--json"], json.io);
    assert.equal(JSON.parse(json.out).independence.worker_id_observed, worker);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
