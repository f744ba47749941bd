/** One masking rule: a name for reports and a pattern whose matches are masked. */
export interface RedactionRule {
  /** Stable rule name, shown in the mask (`[redacted:<name>]`). */
  readonly name: string;
  /** Global regular expression. Group 1, when present, is kept (a label such as `Authorization: Bearer `). */
  readonly pattern: RegExp;
}

/**
 * The built-in rules, most specific first. They are for display: the log itself
 * never stores secret values (receipts keep env names only, and output digests).
 */
export const REDACTION_RULES: readonly RedactionRule[] = [
  {
    name: "private_key",
    pattern:
      /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
  },
  {
    name: "authorization",
    pattern: /((?:Proxy-)?Authorization\s*:\s*(?:[A-Za-z]+\s+)?)[^\s"',;]+/gi,
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
  { name: "url_credentials", pattern: /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+(?=@)/gi },
  {
    name: "secret_assignment",
    pattern:
      /(\b[A-Za-z0-9_.-]*(?:SECRET|TOKEN|PASSWORD|PASSWD|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL)[A-Za-z0-9_.-]*["']?\s*[:=]\s*["']?)[^\s"',;]{4,}/gi,
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
 * little, and it is no substitute for never storing secrets.
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
      masked[rule.name] = (masked[rule.name] ?? 0) + 1;
      const label = typeof keep === "string" && match.startsWith(keep) ? keep : "";
      return `${label}[redacted:${rule.name}]`;
    });
  }
  return { text: out, masked };
}
