/**
 * Text for humans from untrusted sources (agent output, worker results, test
 * ids, task ids): the one place that makes control characters visible before
 * they reach a terminal or a Markdown report. Terminals act on ESC (CSI, OSC 8
 * links, title changes, screen clears), BEL, CR (overwriting a line), BS and
 * the C1 controls; Markdown renderers act on raw HTML. JSON output never goes
 * through here: `--json` stays exact.
 *
 * @module
 */

// C0 except TAB and LF, DEL, C1, and the bidi controls that reorder what is shown.
// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// deno-lint-ignore no-control-regex
const CONTROL_OR_NEWLINE = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function escape(c: string): string {
  const n = c.charCodeAt(0);
  if (c === "\n") return "\\n";
  if (c === "\r") return "\\r";
  if (c === "\t") return "\\t";
  return n <= 0xff
    ? `\\x${n.toString(16).padStart(2, "0")}`
    : `\\u${n.toString(16).padStart(4, "0")}`;
}

/**
 * `text` with every control character but TAB and LF shown as an escape
 * (`\x1b`, `\r`, `\x07`, `\x9b`, `\u202e`), so it cannot drive the terminal.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { visible } from "./mod.ts";
 * equal(visible("a\x1b[2Jb\x07\rc\nd"), "a\\x1b[2Jb\\x07\\rc\nd");
 * equal(visible("plain text"), "plain text");
 * ```
 */
export function visible(text: string): string {
  return text.replace(CONTROL, escape);
}

/**
 * As {@linkcode visible}, and LF and TAB escaped too: for text that must stay on one line.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { visibleLine } from "./mod.ts";
 * equal(visibleLine("a\nb\tc\x1b]8;;http://x\x07"), "a\\nb\\tc\\x1b]8;;http://x\\x07");
 * ```
 */
export function visibleLine(text: string): string {
  return text.replace(CONTROL_OR_NEWLINE, escape);
}

/**
 * Text for a Markdown document: control characters visible, and `&`, `<`,
 * `>` as entities so no raw HTML (a `<script>`, an `<img onerror>`) renders.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { markdownText } from "./mod.ts";
 * equal(markdownText("<script>x</script>&\x1b"), "&lt;script&gt;x&lt;/script&gt;&amp;\\x1b");
 * ```
 */
export function markdownText(text: string): string {
  return visibleLine(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * Why a thrown value failed, in words for a one-line error: an operating system error's
 * reason without its code, call and path (which the line names already), else the message
 * without the `Error:` prefix `String(error)` adds.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { errorReason } from "./mod.ts";
 * equal(errorReason(new Error("ENOENT: no such file or directory, open '/x'")), "no such file or directory");
 * equal(errorReason(new Error("EISDIR: illegal operation on a directory, read")), "is a directory");
 * equal(errorReason(new Error("No such file or directory (os error 2): readfile '/x'")), "no such file or directory");
 * equal(errorReason(new Error("not an Ed25519 JWK")), "not an Ed25519 JWK");
 * equal(errorReason("plain"), "plain");
 * ```
 */
export function errorReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const node = /^(E[A-Z]+): ([^,]+)/.exec(message);
  if (node !== null) return node[1] === "EISDIR" ? "is a directory" : node[2]!;
  const deno = /^(.+?) \(os error \d+\)/.exec(message);
  if (deno !== null) return deno[1]!.charAt(0).toLowerCase() + deno[1]!.slice(1);
  return message;
}
