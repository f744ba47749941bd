/**
 * Parsers for mocha's human reporters (spec, dot, list: they share the
 * failure epilogue) and for TAP (mocha `--reporter tap`, tape, node-tap,
 * TAP 13/14 producers in general). Ids are mocha's full titles: the suite
 * titles and the test title joined by single spaces, the same in every
 * reporter (`--grep` matches them).
 *
 * @module
 */
import type { TestReport } from "../../kernel/contract/types.ts";
import { logLines, TestIds } from "./_ids.ts";

const PASS_MARK = /^(\s*)[✔✓√] (.*?)(?: \(\d+ms\))?$/;
const FAIL_MARK = /^(\s*)\d+\) (.*)$/;
const EPILOGUE_START = /^\s*(\d+) failing$/;

/**
 * mocha spec/dot/list output: failing ids from the numbered epilogue
 * (`  2) suite\n       test:`), passing ids from the spec listing (`✔ test`
 * under its suites, by indentation), `ran` = passing + failing of the summary.
 */
export function parseMocha(log: string): TestReport {
  const all = logLines(log);
  const failing = new TestIds();
  const passing = new TestIds();
  let passed: number | null = null;
  let failed = 0;
  let epilogue = -1;
  const suites: { indent: number; title: string }[] = [];
  for (let i = 0; i < all.length; i++) {
    const line = all[i]!;
    const pass = /^\s*(\d+) passing \(/.exec(line);
    if (pass) {
      passed = Number(pass[1]);
      continue;
    }
    const fail = EPILOGUE_START.exec(line);
    if (fail) {
      failed = Number(fail[1]);
      epilogue = i + 1;
      break;
    }
    if (passed !== null || line.trim() === "") continue;
    const indent = /^\s*/.exec(line)![0].length;
    while (suites.length > 0 && suites.at(-1)!.indent >= indent) suites.pop();
    // mocha indents its listing by at least two spaces; other output (npm's `> script`) is not in it.
    if (indent < 2) continue;
    const p = PASS_MARK.exec(line);
    if (p) {
      passing.add([...suites.map((s) => s.title), p[2]!].join(" "));
      continue;
    }
    if (FAIL_MARK.test(line) || /^\s*- /.test(line)) continue;
    suites.push({ indent, title: line.trim() });
  }
  if (epilogue >= 0) {
    for (let i = epilogue; i < all.length; i++) {
      const head = /^\s{2}\d+\) (.*)$/.exec(all[i]!);
      if (!head) continue;
      // The title runs over indented lines until one ends with ":".
      const parts: string[] = [];
      let text = head[1]!;
      for (let j = i + 1; !text.endsWith(":") && j < all.length && j < i + 50; j++) {
        parts.push(text.trim());
        text = all[j]!;
        i = j;
      }
      if (!text.endsWith(":")) continue;
      parts.push(text.trim().slice(0, -1));
      failing.add(parts.join(" "));
    }
  }
  const ran = passed === null && epilogue < 0 ? null : (passed ?? 0) + failed;
  return { failing: failing.list, passing: passing.list, ran };
}

/**
 * TAP: `not ok N - description` fails (unless `# TODO`), `ok` passes (a
 * `# SKIP` neither passes nor counts as run). Only top-level test points
 * count (indented subtests roll up into their parent's point); `ran` is the
 * number of non-skipped points, or `null` when there are none and no plan.
 */
export function parseTap(log: string): TestReport {
  const failing = new TestIds();
  const passing = new TestIds();
  let points = 0;
  let plan = false;
  for (const line of logLines(log)) {
    if (/^1\.\.\d+/.test(line)) plan = true;
    const m = /^(not ok|ok)\b(?:\s+\d+)?(?:\s*-)?\s*(.*)$/.exec(line);
    if (!m) continue;
    const directive = /\s#\s*(SKIP|TODO)\b/i.exec(m[2]!);
    const title = (directive ? m[2]!.slice(0, directive.index) : m[2]!).trim();
    if (directive?.[1]?.toUpperCase() === "SKIP") continue;
    points++;
    if (m[1] === "not ok" && directive === null) failing.add(title);
    else if (m[1] === "ok") passing.add(title);
  }
  return { failing: failing.list, passing: passing.list, ran: points > 0 || plan ? points : null };
}
