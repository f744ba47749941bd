/** One masking rule: a name for reports and a pattern whose matches are masked. */
export interface RedactionRule {
  /** Stable rule name, shown in the mask (`[redacted:<name>]`). */
  readonly name: string;
  /** Global regular expression. Group 1, when present, is kept (a label such as `Authorization: Bearer `). */
  readonly pattern: RegExp;
  /** When given, a match is masked only if its value (the text after group 1) passes. */
  readonly value?: (value: string) => boolean;
}

/**
 * Whether the value of a `NAME=value` / `"name": "value"` assignment looks
 * like a secret: not a number or a JSON literal, not a variable NAME or a
 * `$VAR` reference (`"apiKeySource":"ANTHROPIC_API_KEY"` names a variable, it
 * is not one), not already masked.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { secretShapedValue } from "./redact.ts";
 * equal(secretShapedValue("wJalrXUtnFEMI"), true);
 * equal(secretShapedValue("128000"), false);
 * equal(secretShapedValue("ANTHROPIC_API_KEY"), false);
 * equal(secretShapedValue("$OPENAI_API_KEY"), false);
 * ```
 */
export function secretShapedValue(value: string): boolean {
  if (/^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(value)) return false;
  if (/^(?:true|false|null|none|nil|undefined)$/i.test(value)) return false;
  if (/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(value)) return false;
  if (/^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$/.test(value)) return false;
  if (value.startsWith("[redacted") || /^\*+$/.test(value)) return false;
  return true;
}

/**
 * The built-in rules, most specific first. They are for display: the log itself
 * never stores secret values (receipts keep env names only, and output digests).
 */
export const REDACTION_RULES: readonly RedactionRule[] = [
  {
    // Inside a JSON string a key's line breaks are `\n` escapes; a cut key stops before
    // a quote or another escape, so the string (and the JSON around it) stays valid.
    name: "private_key",
    pattern:
      /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:[^"\\]|\\[nrt])*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|(?="|\\(?![nrt]))|$)/g,
  },
  {
    name: "authorization",
    pattern: /((?:Proxy-)?Authorization\s*:\s*(?:[A-Za-z]+\s+)?)[^\s"'\\,;]+/gi,
  },
  { name: "jwt", pattern: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  {
    name: "github_token",
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g,
  },
  { name: "aws_access_key", pattern: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[A-Z0-9]{16}\b/g },
  { name: "slack_token", pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { name: "openai_key", pattern: /\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}/g },
  { name: "google_api_key", pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { name: "npm_token", pattern: /\bnpm_[A-Za-z0-9]{30,}\b/g },
  { name: "gitlab_token", pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g },
  { name: "bearer_credential", pattern: /(\b(?:Bearer|Basic)\s+)[A-Za-z0-9._~+/=-]{12,}/g },
  {
    name: "url_credentials",
    pattern: /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@"'\\]+:)[^\s@/"'\\]+(?=@)/gi,
  },
  {
    // The value never spans a quote, a backslash or a JSON bracket, and only
    // secret-shaped values are masked: numbers (`"maxOutputTokens":128000`) and
    // variable names stay, so a JSON line stays JSON.
    name: "secret_assignment",
    pattern:
      /(\b[A-Za-z0-9_.-]*(?:SECRET|TOKEN|PASSWORD|PASSWD|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL)[A-Za-z0-9_.-]*(?:\\?["'])?\s*[:=]\s*(?:\\?["'])?)[^\s"'\\,;{}[\]]{4,}/gi,
    value: secretShapedValue,
  },
];

/** What {@linkcode redactSecrets} did. */
export interface RedactionResult {
  /** The masked text. */
  readonly text: string;
  /** How many values were masked, per rule name. */
  readonly masked: Readonly<Record<string, number>>;
}

/**
 * Masks secret-looking values in text shown to a person (transcripts in
 * `vouch inspect`). Conservative by design: it masks too much rather than too
 * little, and it is no substitute for never storing secrets. A JSON line stays
 * valid JSON: no mask ever spans a quote or an escape, and assignments mask
 * only secret-shaped values ({@linkcode secretShapedValue}).
 *
 * @example
 * ```ts
 * import { redactSecrets } from "./redact.ts";
 * const { text } = redactSecrets("Authorization: Bearer abc.def.ghi and AKIAABCDEFGHIJKLMNOP");
 * if (text !== "Authorization: Bearer [redacted:authorization] and [redacted:aws_access_key]") {
 *   throw new Error(text);
 * }
 * ```
 */
export function redactSecrets(
  text: string,
  rules: readonly RedactionRule[] = REDACTION_RULES,
): RedactionResult {
  const masked: Record<string, number> = {};
  let out = text;
  for (const rule of rules) {
    out = out.replace(rule.pattern, (match: string, keep?: unknown) => {
      const label = typeof keep === "string" && match.startsWith(keep) ? keep : "";
      if (rule.value !== undefined && !rule.value(match.slice(label.length))) return match;
      masked[rule.name] = (masked[rule.name] ?? 0) + 1;
      return `${label}[redacted:${rule.name}]`;
    });
  }
  return { text: out, masked };
}
