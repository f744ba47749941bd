/**
 * junit.xml against Jenkins' junit-10.xsd (tests/fixtures/junit/junit-10.xsd,
 * written from that schema), validated by a real XML Schema validator
 * (xmllint from libxml2-utils); durations are the candidates' `duration_s`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type CandidateRecord } from "../../../adapters/batch/mod.ts";
import { buildReport } from "../../../adapters/batch/report.ts";
import { CANDIDATE_STATUSES } from "../../../adapters/batch/schema.ts";
import { reportJunit } from "../../../adapters/batch/render.ts";

const XSD = fileURLToPath(new URL("../../fixtures/junit/junit-10.xsd", import.meta.url));
const XMLLINT = (() => {
  try {
    return new Deno.Command("xmllint", { args: ["--version"] }).outputSync().success;
  } catch {
    return false;
  }
})();
if (!XMLLINT) console.log("junit_xsd_test: xmllint (apt libxml2-utils) not found; skipping");

async function validate(xml: string): Promise<{ ok: boolean; stderr: string }> {
  const dir = await Deno.makeTempDir({ prefix: "vouch-junit-" });
  try {
    await Deno.writeTextFile(join(dir, "junit.xml"), xml);
    const out = await new Deno.Command("xmllint", {
      args: ["--noout", "--schema", XSD, join(dir, "junit.xml")],
      stdout: "piped",
      stderr: "piped",
    }).output();
    return { ok: out.success, stderr: new TextDecoder().decode(out.stderr) };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function candidate(n: number, status: CandidateRecord["status"], task: string): CandidateRecord {
  return {
    id: `${task}@m${n}`,
    instance_id: task,
    model_name_or_path: `m${n}`,
    key: String(n).padStart(64, "0"),
    patch_digest: "sha256:x",
    base: "b",
    status,
    reason: status === "resolved"
      ? "verified"
      : status === "error"
      ? "could_not_run"
      : status === "empty_patch"
      ? "empty_patch"
      : "failed_tests",
    reasons: ['a <b> & "c"'],
    detail: 'd <&> "x" ]]>',
    tests: [],
    artefacts: { dir: null, log: null, verified_patch: null, attestation: null },
    duration_s: 1.25 * (n + 1),
  };
}

Deno.test({
  name: "junit.xml of every status validates against junit-10.xsd and carries durations",
  ignore: !XMLLINT,
  fn: async () => {
    const records = CANDIDATE_STATUSES.flatMap((s, i) => [
      candidate(2 * i, s, "t1"),
      candidate(2 * i + 1, s, "t2"),
    ]);
    const ids = records.map((r) => r.id).sort();
    const report = buildReport(
      {
        tasks: "t",
        predictions: "p",
        task_ids: ["t1", "t2"],
        candidate_ids: ids,
        unpredicted_task_ids: [],
      },
      records,
      null,
    );
    const xml = reportJunit(report);
    const r = await validate(xml);
    assert.ok(r.ok, r.stderr + xml);
    // Durations: per case, summed per suite and overall (1.25 * (0+1+...+7) = 45).
    assert.match(xml, /<testsuites [^>]* time="45\.000">/);
    assert.match(xml, /<testcase classname="t1" name="t1@m0" time="1\.250">/);
    const suites = [...xml.matchAll(/<testsuite [^>]*time="([0-9.]+)"/g)].map((m) => Number(m[1]));
    assert.equal(suites.reduce((a, b) => a + b, 0), 45);
    assert.match(xml, /<testsuite name="t1" tests="4" failures="1" errors="1" skipped="1" /);

    // The validator is real: the attribute junit.xml used to put on <testsuites> is refused.
    const old = xml.replace(
      '<testsuites name="vouch batch"',
      '<testsuites skipped="2" name="vouch batch"',
    );
    const bad = await validate(old);
    assert.equal(bad.ok, false);
    assert.match(bad.stderr, /skipped/);
  },
});
