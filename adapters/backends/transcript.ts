/**
 * Transcript capture: the bounded record of what a backend printed, with
 * secret-looking values masked before anything is stored.
 *
 * @module
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { sha256Hex } from "../digest/sha256.ts";
import { redactSecrets } from "../redact/redact.ts";
import type { CapturedStream } from "../process/capture.ts";
import type { TranscriptRef } from "./types.ts";

/** A masking function: returns the masked text and how many values it masked. */
export type SecretMasker = (text: string) => { text: string; masked: number };

/**
 * Masks secret-looking values with the one rule set vouch has
 * ({@linkcode redactSecrets} in `adapters/redact`), counting how many it masked.
 *
 * @example
 * ```ts
 * import { maskSecrets } from "./transcript.ts";
 * const r = maskSecrets("export GITHUB_TOKEN=ghp_0123456789abcdefghijklmnopqrstuv");
 * if (r.text.includes("ghp_") || r.masked === 0) throw new Error(r.text);
 * ```
 */
export const maskSecrets: SecretMasker = (text: string): { text: string; masked: number } => {
  const result = redactSecrets(text);
  let masked = 0;
  for (const count of Object.values(result.masked)) masked += count;
  return { text: result.text, masked };
};

/** Options of {@linkcode captureTranscript}. */
export interface TranscriptOptions {
  /** Backend name (part of the file name). */
  readonly backend: string;
  /** Task id (part of the file name). */
  readonly taskId: string;
  /** Attempt number (part of the file name). */
  readonly attempt: number;
  /** The captured standard output. */
  readonly stdout: CapturedStream;
  /** The captured standard error. */
  readonly stderr: CapturedStream;
  /** Directory to write into; omitted = keep the transcript only as a digest. */
  readonly dir?: string;
  /** Maximum stored bytes (default 2 MiB); head and tail are kept. */
  readonly maxBytes?: number;
  /** Masking function (default {@linkcode maskSecrets}). */
  readonly mask?: SecretMasker;
}

function streamText(s: CapturedStream, label: string): string {
  const header = `--- ${label} (${s.totalBytes} bytes, ${s.sha256}${
    s.truncated ? ", truncated" : ""
  }) ---\n`;
  return header + s.head + (s.truncated ? `\n[… ${label} truncated …]\n` + s.tail : "");
}

/**
 * Builds the masked, bounded transcript of a subprocess backend run and
 * writes it to `<dir>/<task>-<attempt>-<backend>.transcript.txt`.
 *
 * @example
 * ```ts
 * import { captureTranscript } from "./transcript.ts";
 * const s = { head: "hello", tail: "", totalBytes: 5, truncated: false, sha256: "sha256:0" };
 * const ref = await captureTranscript({ backend: "command", taskId: "t", attempt: 1, stdout: s, stderr: { ...s, head: "" } });
 * if (ref.path !== null || ref.bytes === 0) throw new Error();
 * ```
 */
export function captureTranscript(opts: TranscriptOptions): Promise<TranscriptRef> {
  const raw = streamText(opts.stdout, "stdout") + "\n" + streamText(opts.stderr, "stderr") + "\n";
  return captureTextTranscript({
    ...opts,
    text: raw,
    truncated: opts.stdout.truncated || opts.stderr.truncated,
  });
}

/** Options of {@linkcode captureTextTranscript}. */
export interface TextTranscriptOptions {
  /** Backend name (part of the file name). */
  readonly backend: string;
  /** Task id (part of the file name). */
  readonly taskId: string;
  /** Attempt number (part of the file name). */
  readonly attempt: number;
  /** The raw transcript text (masked here before anything is stored). */
  readonly text: string;
  /** Whether the text is already known to be incomplete. */
  readonly truncated?: boolean;
  /** Directory to write into; omitted = keep the transcript only as a digest. */
  readonly dir?: string;
  /** Maximum stored bytes (default 2 MiB); head and tail are kept. */
  readonly maxBytes?: number;
  /** Masking function (default {@linkcode maskSecrets}). */
  readonly mask?: SecretMasker;
}

/**
 * Masks, bounds (head + tail) and stores a transcript given as text (for
 * in-process backends: their emitted events, one JSON object per line).
 *
 * @example
 * ```ts
 * import { captureTextTranscript } from "./transcript.ts";
 * const ref = await captureTextTranscript({ backend: "fn", taskId: "t", attempt: 1, text: "password=hunter2hunter2\n" });
 * if (ref.masked !== 1) throw new Error();
 * ```
 */
export async function captureTextTranscript(opts: TextTranscriptOptions): Promise<TranscriptRef> {
  const maxBytes = opts.maxBytes ?? 2 * 1024 * 1024;
  const { text: masked, masked: count } = (opts.mask ?? maskSecrets)(opts.text);
  let bytes = new TextEncoder().encode(masked);
  let truncated = opts.truncated ?? false;
  if (bytes.length > maxBytes) {
    const half = Math.floor(maxBytes / 2) - 64;
    const dec = new TextDecoder("utf-8", { fatal: false });
    const cut = dec.decode(bytes.subarray(0, half)) + "\n[… transcript truncated …]\n" +
      dec.decode(bytes.subarray(bytes.length - half));
    bytes = new TextEncoder().encode(cut);
    truncated = true;
  }
  let path: string | null = null;
  if (opts.dir !== undefined) {
    await mkdir(opts.dir, { recursive: true });
    path = join(opts.dir, `${opts.taskId}-${opts.attempt}-${opts.backend}.transcript.txt`);
    await writeFile(path, bytes);
  }
  return { path, digest: sha256Hex(bytes), bytes: bytes.length, truncated, masked: count };
}
