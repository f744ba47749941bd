/**
 * What every failing-test parser shares: the log as clean lines and an
 * order-preserving, deduplicating id list.
 *
 * @module
 */
// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

/** The log as lines, colours and carriage returns removed. */
export function logLines(log: string): string[] {
  return log.replace(ANSI, "").replace(/\r\n?/g, "\n").split("\n");
}

/** An order-preserving, deduplicating list of test ids. */
export class TestIds {
  readonly #seen = new Set<string>();
  /** The ids, in first-seen order. */
  readonly list: string[] = [];
  /** Adds `id` (trimmed; empty ids are ignored). */
  add(id: string): void {
    const t = id.trim();
    if (t.length === 0 || this.#seen.has(t)) return;
    this.#seen.add(t);
    this.list.push(t);
  }
}
