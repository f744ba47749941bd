/**
 * What `vouch verify` says about text before a patch's first `diff --git`
 * line: raw `git show` or `git format-patch` output carries a commit header
 * (commit id, author, date, message) that is not part of the diff. The strict
 * parser skips it; the user is told so, once, on stderr.
 *
 * @module
 */

const MAX_SCAN = 64 * 1024;

/**
 * The note for a patch that starts with a commit header, or null.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { commitHeaderNote } from "./patch_note.ts";
 * const show = "commit 1fec04\nAuthor: a <a@b>\n\n    fix\n\ndiff --git a/x b/x\n";
 * equal(
 *   commitHeaderNote(new TextEncoder().encode(show)),
 *   "vouch: note: the patch starts with a commit header (git show output: commit 1fec04, 4 lines); only the diff after it is verified, the header is ignored",
 * );
 * equal(commitHeaderNote(new TextEncoder().encode("diff --git a/x b/x\n")), null);
 * ```
 */
export function commitHeaderNote(patch: Uint8Array): string | null {
  const text = new TextDecoder().decode(patch.subarray(0, MAX_SCAN));
  const at = text.search(/^diff --git /m);
  if (at <= 0) return null;
  const head = text.slice(0, at);
  const show = /^commit ([0-9a-f]{4,64})\b/.exec(head);
  const mail = /^From ([0-9a-f]{40}) /.exec(head);
  if (show === null && mail === null) return null;
  const lines = head.replace(/\n+$/, "").split("\n").length;
  const what = show !== null
    ? `git show output: commit ${show[1]}`
    : `git format-patch output: commit ${mail![1]!.slice(0, 12)}`;
  return `vouch: note: the patch starts with a commit header (${what}, ${lines} lines); only the diff after it is verified, the header is ignored`;
}
