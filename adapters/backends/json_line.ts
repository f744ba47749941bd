/**
 * Decoding one JSONL protocol line into an untrusted value or a typed protocol issue.
 *
 * @module
 */
import type { BackendEvent, ProtocolIssueCode } from "./types.ts";
import { boundText } from "./types.ts";
import type { StreamLine } from "./line_splitter.ts";

/** A protocol issue event (a line that was not accepted). */
export type ProtocolIssue = Extract<BackendEvent, { kind: "protocol" }>;

/** Result of {@linkcode decodeJsonLine}. */
export type DecodedLine =
  | { readonly ok: true; readonly value: Record<string, unknown> }
  | { readonly ok: false; readonly issue: ProtocolIssue | null };

/**
 * Builds a protocol issue event with a bounded detail.
 *
 * @example
 * ```ts
 * import { protocolIssue } from "./json_line.ts";
 * if (protocolIssue("not_json", 3, "x").line !== 3) throw new Error();
 * ```
 */
export function protocolIssue(
  code: ProtocolIssueCode,
  line: number,
  detail: string,
): ProtocolIssue {
  return { kind: "protocol", code, line, detail: boundText(detail, 300) };
}

/**
 * Decodes a line as a JSON object. Blank lines are skipped (`issue: null`);
 * overlong, unterminated-and-broken, non-JSON and non-object lines become
 * protocol issues.
 *
 * @example
 * ```ts
 * import { decodeJsonLine } from "./json_line.ts";
 * const d = decodeJsonLine({ number: 1, text: '{"type":"x"}', tooLong: false, unterminated: false });
 * if (!d.ok) throw new Error();
 * ```
 */
export function decodeJsonLine(line: StreamLine): DecodedLine {
  const text = line.text.trim();
  if (text === "") return { ok: false, issue: null };
  if (line.tooLong) {
    return {
      ok: false,
      issue: protocolIssue(
        "line_too_long",
        line.number,
        `line longer than bound: ${text.slice(0, 80)}`,
      ),
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return {
      ok: false,
      issue: protocolIssue(
        line.unterminated ? "truncated" : "not_json",
        line.number,
        text.slice(0, 200),
      ),
    };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, issue: protocolIssue("schema", line.number, "line is not a JSON object") };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/** Turns zod issues into one short detail string. */
export function describeZodIssues(
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
): string {
  return issues.slice(0, 3).map((i) => `${i.path.map(String).join(".") || "(root)"}: ${i.message}`)
    .join("; ");
}
