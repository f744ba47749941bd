/**
 * Red team for the outer sandbox of `vouch evaluate`: both Deno's and Node's
 * read permission on a directory follow symbolic links, so a bundle that
 * carries a symlink (or a hard link) to a file outside it hands that file to
 * anything running in the evaluation child. The child below is an exploited
 * evaluator that reads every entry it can and smuggles the bytes out in a
 * valid VerificationResult. The parent must refuse such a bundle before the
 * child starts (lstat + realpath containment): the secret never appears, and a
 * link that stays inside the bundle is still granted and judged as before.
 */
import assert from "node:assert/strict";
import { evaluateBundle } from "../../../adapters/bundle/isolated.ts";
import { BUNDLE_FIXTURES, materializeFixture } from "./fixtures.ts";

const LEAKY = new URL("./leaky_child.ts", import.meta.url);
const SECRET = "vouch-secret-beside-the-bundle";

async function withGood(
  fn: (p: Awaited<ReturnType<typeof materializeFixture>>, base: string) => Promise<void>,
) {
  const base = await Deno.makeTempDir({ prefix: "vouch-link-escape-" });
  try {
    const good = BUNDLE_FIXTURES.find((f) => f.name === "good")!;
    const paths = await materializeFixture(good, base);
    await Deno.writeTextFile(`${base}/outside/secret.txt`, `${SECRET}\n`);
    await fn(paths, base);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
}

const summaryOf = (r: Awaited<ReturnType<typeof evaluateBundle>>) =>
  r.findings.map((f) => f.summary).join("\n");

for (
  const [name, plant] of [
    [
      "an absolute symlink",
      (b: string, base: string) => Deno.symlink(`${base}/outside/secret.txt`, `${b}/notes.txt`),
    ],
    ["a relative symlink", (b: string) => Deno.symlink("../outside/secret.txt", `${b}/notes.txt`)],
    [
      "a symlinked directory",
      (b: string, base: string) => Deno.symlink(`${base}/outside`, `${b}/more`),
    ],
    [
      "a hard link",
      (b: string, base: string) => Deno.link(`${base}/outside/secret.txt`, `${b}/notes.txt`),
    ],
  ] as const
) {
  Deno.test(`red team: ${name} out of the bundle is never granted to the evaluation child`, async () => {
    await withGood(async (paths, base) => {
      await plant(paths.bundleDir, base);
      const result = await evaluateBundle(paths, { childEntry: LEAKY });
      const summary = summaryOf(result);
      assert.ok(!summary.includes(SECRET), `the child read the secret: ${summary}`);
      assert.doesNotMatch(summary, /^leak:/, "the child was started");
      assert.equal(result.decision_support.recommendation, "insufficient_evidence");
      assert.deepEqual(result.decision_support.reason_codes, ["evaluator_error"]);
      assert.match(summary, /symbolic link leaving the bundle|hard links/);
    });
  });
}

Deno.test("red team: a link that stays inside the bundle is granted (and the evaluator still refuses it)", async () => {
  await withGood(async (paths) => {
    await Deno.symlink("changes.patch", `${paths.bundleDir}/alias.patch`);
    // The leaky child runs: the link reads only the bundle's own file.
    const leaked = summaryOf(await evaluateBundle(paths, { childEntry: LEAKY }));
    assert.match(leaked, /^leak:/);
    assert.ok(!leaked.includes(SECRET));
    // The real evaluator: an undeclared entry, judged, not refused unjudged.
    const real = await evaluateBundle(paths);
    assert.notDeepEqual(real.decision_support.reason_codes, ["evaluator_error"]);
  });
});
