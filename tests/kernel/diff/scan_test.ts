import assert from "node:assert/strict";
import { HUNK_SCAN_FAILURES, scanHunkBody } from "../../../kernel/diff/mod.ts";

const enc = new TextEncoder();
const scan = (text: string, oldLines: number, newLines: number) =>
  scanHunkBody(enc.encode(text), 0, oldLines, newLines);

Deno.test("scanHunkBody counts by first byte and stops when the counts are met", () => {
  const text = " a\n-b\n+c\n+d\n e\nnext\n";
  const r = scan(text, 3, 4);
  assert.deepEqual(r, {
    status: 0,
    end: text.indexOf("next"),
    lines: 5,
    additions: 2,
    deletions: 1,
  });
});

Deno.test("scanHunkBody: empty lines are context, CR is content", () => {
  assert.deepEqual(scan("\n-a\r\n+b\r\n", 2, 2), {
    status: 0,
    end: 9,
    lines: 3,
    additions: 1,
    deletions: 1,
  });
});

Deno.test("scanHunkBody: trailing and inner no-newline markers", () => {
  const marker = "\\ No newline at end of file";
  assert.equal(scan(`-a\n${marker}\n+b\n${marker}\n`, 1, 1).lines, 4);
  assert.equal(scan(`-a\n+b\n${marker}`, 1, 1).status, 0, "the final marker may lack its LF");
  assert.equal(scan(`-a\n\\ x\n+b\n`, 1, 1).status, HUNK_SCAN_FAILURES.badMarker);
  assert.equal(scan(`${marker}\n-a\n+b\n`, 1, 1).status, HUNK_SCAN_FAILURES.badMarker);
  assert.equal(scan(`-a\n${marker}\n${marker}\n+b\n`, 1, 1).status, HUNK_SCAN_FAILURES.badMarker);
});

Deno.test("scanHunkBody: failures report where they happened", () => {
  assert.deepEqual(scan("-a\nx\n", 2, 0), {
    status: HUNK_SCAN_FAILURES.badLine,
    end: 3,
    lines: 1,
    additions: 0,
    deletions: 1,
  });
  assert.equal(scan("-a\n-b\n", 1, 1).status, HUNK_SCAN_FAILURES.badLine, "too many old lines");
  assert.equal(scan("-a\n-b\n", 1, 0).end, 3, "extra lines are left to the parser");
  assert.equal(scan("-a\n", 2, 0).status, HUNK_SCAN_FAILURES.truncated);
  assert.equal(scan("-a", 1, 0).status, HUNK_SCAN_FAILURES.truncated, "a line without LF");
});
