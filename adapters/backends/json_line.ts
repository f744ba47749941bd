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

/** What {@linkcode parseJsonText} returns: the value, or the parser's message. */
export type JsonText =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: string };

/**
 * `text` parsed as JSON, or why it is not JSON (`JSON.parse`'s message), as a
 * value: what every reader of untrusted JSON text turns into its own refusal.
 *
 * @example
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
 * import { parseJsonText } from "./json_line.ts";
 * deepEqual(parseJsonText('{"a":1}'), { ok: true, value: { a: 1 } });
 * equal(parseJsonText("{").ok, false);
 * ```
 */
export function parseJsonText(text: string): JsonText {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
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
  const parsed = parseJsonText(text);
  if (!parsed.ok) {
    return {
      ok: false,
      issue: protocolIssue(
        line.unterminated ? "truncated" : "not_json",
        line.number,
        text.slice(0, 200),
      ),
    };
  }
  const value = parsed.value;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, issue: protocolIssue("schema", line.number, "line is not a JSON object") };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/** The part of a zod schema {@linkcode parseJsonLine} uses. */
export interface LineSchema<T> {
  /** Validates a value: `data` on success, the issues otherwise. */
  safeParse(
    value: unknown,
  ):
    | { readonly success: true; readonly data: T }
    | {
      readonly success: false;
      readonly error: { readonly issues: readonly { path: PropertyKey[]; message: string }[] };
    };
}

/** Result of {@linkcode parseJsonLine}. */
export type ParsedLine<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly issue: ProtocolIssue | null };

/**
 * Decodes a line ({@linkcode decodeJsonLine}) and validates it against a
 * stream's line schema. A line whose `type` is one of `knownTypes` but does
 * not match is a `schema` issue; any other type is `unknown_type`
 * ("unknown <noun> type ..."). Blank lines give `issue: null`.
 *
 * @example
 * ```ts
 * import { parseJsonLine } from "./json_line.ts";
 * import { z } from "zod";
 * const Line = z.object({ type: z.literal("ping") });
 * const r = parseJsonLine({ number: 1, text: '{"type":"pong"}', tooLong: false, unterminated: false }, Line, ["ping"], "event");
 * if (r.ok || r.issue?.code !== "unknown_type") throw new Error();
 * ```
 */
export function parseJsonLine<T>(
  line: StreamLine,
  schema: LineSchema<T>,
  knownTypes: readonly string[],
  noun: string,
): ParsedLine<T> {
  const decoded = decodeJsonLine(line);
  if (!decoded.ok) return decoded;
  const parsed = schema.safeParse(decoded.value);
  if (parsed.success) return { ok: true, value: parsed.data };
  const type = decoded.value["type"];
  const known = typeof type === "string" && knownTypes.includes(type);
  return {
    ok: false,
    issue: protocolIssue(
      known ? "schema" : "unknown_type",
      line.number,
      known
        ? `${String(type)}: ${describeZodIssues(parsed.error.issues)}`
        : `unknown ${noun} type ${JSON.stringify(type)?.slice(0, 80)}`,
    ),
  };
}

/**
 * A stream parser's reading of its lines: each one decoded and validated
 * ({@linkcode parseJsonLine}), with a count of the protocol issues met, its
 * own and those the parser finds inside a valid line ({@linkcode JsonLineReader.count}).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { JsonLineReader } from "./json_line.ts";
 * import { z } from "zod";
 * const reader = new JsonLineReader(z.object({ type: z.literal("ping") }), ["ping"], "event");
 * const line = (text: string) => ({ number: 1, text, tooLong: false, unterminated: false });
 * equal(reader.read(line('{"type":"ping"}')).ok, true);
 * equal(reader.read(line("")).ok, false);
 * equal(reader.issues, 0);
 * const bad = reader.read(line('{"type":"pong"}'));
 * equal(bad.ok ? null : bad.events[0]?.kind, "protocol");
 * equal(reader.issues, 1);
 * ```
 */
export class JsonLineReader<T> {
  #issues = 0;
  readonly #schema: LineSchema<T>;
  readonly #knownTypes: readonly string[];
  readonly #noun: string;

  /** Lines are `schema`'s; `knownTypes` and `noun` as {@linkcode parseJsonLine} takes them. */
  constructor(schema: LineSchema<T>, knownTypes: readonly string[], noun: string) {
    this.#schema = schema;
    this.#knownTypes = knownTypes;
    this.#noun = noun;
  }

  /** Protocol issues met so far. */
  get issues(): number {
    return this.#issues;
  }

  /** Counts an issue the parser found itself; returns it as the events to yield. */
  count(issue: ProtocolIssue): BackendEvent[] {
    this.#issues += 1;
    return [issue];
  }

  /** The line's value, or the events to yield instead: its issue (counted), none for a blank line. */
  read(
    line: StreamLine,
  ): { readonly ok: true; readonly value: T } | {
    readonly ok: false;
    readonly events: BackendEvent[];
  } {
    const parsed = parseJsonLine(line, this.#schema, this.#knownTypes, this.#noun);
    if (parsed.ok) return parsed;
    return { ok: false, events: parsed.issue === null ? [] : this.count(parsed.issue) };
  }
}

/** Turns zod issues into one short detail string. */
export function describeZodIssues(
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
): string {
  return issues.slice(0, 3).map((i) => `${i.path.map(String).join(".") || "(root)"}: ${i.message}`)
    .join("; ");
}
