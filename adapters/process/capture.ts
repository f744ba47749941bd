import { StreamingSha256 } from "../digest/sha256.ts";
import { redactKeyMaterial } from "../keys/key_material.ts";

/**
 * What was kept of one output stream: a head and a tail cut on UTF-8
 * boundaries, the exact byte count, whether anything was dropped, and the
 * SHA-256 of the whole stream (computed while streaming).
 */
export interface CapturedStream {
  /** The first bytes (all of them when not truncated), decoded as UTF-8. */
  readonly head: string;
  /** The last bytes when truncated (else `""`), decoded as UTF-8. */
  readonly tail: string;
  /** Total bytes the stream carried. */
  readonly totalBytes: number;
  /** Whether bytes between head and tail were dropped. */
  readonly truncated: boolean;
  /** `sha256:<hex>` of every byte of the stream. */
  readonly sha256: string;
}

/** Default bytes kept per stream (head plus tail). */
export const DEFAULT_MAX_CAPTURE_BYTES = 64 * 1024;

const decoder = new TextDecoder("utf-8", { fatal: false });

/** Length of the longest prefix of `bytes` that does not end inside a UTF-8 sequence. */
function utf8PrefixEnd(bytes: Uint8Array): number {
  const n = bytes.length;
  // Look back at most 3 bytes for the start of the last sequence.
  for (let back = 1; back <= Math.min(4, n); back++) {
    const b = bytes[n - back]!;
    if ((b & 0xc0) === 0x80) continue; // continuation byte
    const need = b < 0x80
      ? 1
      : (b & 0xe0) === 0xc0
      ? 2
      : (b & 0xf0) === 0xe0
      ? 3
      : (b & 0xf8) === 0xf0
      ? 4
      : 1;
    return back >= need ? n : n - back;
  }
  return n;
}

/** Index of the first byte of `bytes` that does not sit inside a sequence started before it. */
function utf8SuffixStart(bytes: Uint8Array): number {
  let i = 0;
  while (i < 3 && i < bytes.length && (bytes[i]! & 0xc0) === 0x80) i++;
  return i;
}

/**
 * Keeps at most `maxBytes` of a stream (half head, half tail) while hashing
 * and counting all of it. Memory is bounded by `maxBytes` however much is fed.
 *
 * @example
 * ```ts
 * import { BoundedCapture } from "./capture.ts";
 * const c = new BoundedCapture(8);
 * c.push(new TextEncoder().encode("0123456789abcdef"));
 * const s = c.finish();
 * if (s.head !== "0123" || s.tail !== "cdef" || !s.truncated || s.totalBytes !== 16) throw new Error();
 * ```
 */
export class BoundedCapture {
  readonly #headCap: number;
  readonly #tailCap: number;
  // Both grow on demand: a 16 MiB cap costs nothing for a 40-byte output.
  #head: Uint8Array = new Uint8Array(0);
  #headLen = 0;
  #ring: Uint8Array = new Uint8Array(0);
  #ringPos = 0; // next write position
  #ringLen = 0;
  #total = 0;
  readonly #hash = new StreamingSha256();

  /** `maxBytes` is split evenly between head and tail (minimum 2). */
  constructor(maxBytes: number = DEFAULT_MAX_CAPTURE_BYTES) {
    const max = Math.max(2, Math.floor(maxBytes));
    this.#headCap = Math.floor(max / 2);
    this.#tailCap = max - this.#headCap;
  }

  /** Feeds a chunk. */
  push(chunk: Uint8Array): void {
    this.#total += chunk.length;
    this.#hash.update(chunk);
    let rest = chunk;
    if (this.#headLen < this.#headCap) {
      const take = Math.min(this.#headCap - this.#headLen, rest.length);
      if (this.#headLen + take > this.#head.length) {
        // Double (at least to fit), never past the cap.
        const size = Math.min(this.#headCap, Math.max(this.#headLen + take, 2 * this.#head.length));
        const grown = new Uint8Array(size);
        grown.set(this.#head.subarray(0, this.#headLen));
        this.#head = grown;
      }
      this.#head.set(rest.subarray(0, take), this.#headLen);
      this.#headLen += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    const cap = this.#tailCap;
    // The tail ring exists only once the output outgrows the head.
    if (this.#ring.length === 0) this.#ring = new Uint8Array(cap);
    if (rest.length >= cap) {
      this.#ring.set(rest.subarray(rest.length - cap));
      this.#ringPos = 0;
      this.#ringLen = cap;
      return;
    }
    const first = Math.min(cap - this.#ringPos, rest.length);
    this.#ring.set(rest.subarray(0, first), this.#ringPos);
    if (first < rest.length) this.#ring.set(rest.subarray(first), 0);
    this.#ringPos = (this.#ringPos + rest.length) % cap;
    this.#ringLen = Math.min(cap, this.#ringLen + rest.length);
  }

  /** Bytes fed so far. */
  get totalBytes(): number {
    return this.#total;
  }

  /** Finishes: decodes head and tail; the capture cannot be fed afterwards. */
  finish(): CapturedStream {
    const tailBytes = new Uint8Array(this.#ringLen);
    if (this.#ringLen < this.#tailCap) tailBytes.set(this.#ring.subarray(0, this.#ringLen));
    else {
      tailBytes.set(this.#ring.subarray(this.#ringPos), 0);
      tailBytes.set(this.#ring.subarray(0, this.#ringPos), this.#tailCap - this.#ringPos);
    }
    const truncated = this.#total > this.#headLen + this.#ringLen;
    const headBytes = this.#head.subarray(0, this.#headLen);
    const sha256 = this.#hash.hex();
    if (!truncated) {
      const all = new Uint8Array(headBytes.length + tailBytes.length);
      all.set(headBytes);
      all.set(tailBytes, headBytes.length);
      return {
        head: redactKeyMaterial(decoder.decode(all)),
        tail: "",
        totalBytes: this.#total,
        truncated,
        sha256,
      };
    }
    // vouch's own keys never leave a capture (the digest stays over the real bytes).
    return {
      head: redactKeyMaterial(decoder.decode(headBytes.subarray(0, utf8PrefixEnd(headBytes)))),
      tail: redactKeyMaterial(decoder.decode(tailBytes.subarray(utf8SuffixStart(tailBytes)))),
      totalBytes: this.#total,
      truncated,
      sha256,
    };
  }
}

/**
 * The last `maxBytes` of a string's UTF-8 encoding, cut on a character
 * boundary (used for contract capture tails).
 *
 * @example
 * ```ts
 * import { utf8Tail } from "./capture.ts";
 * if (utf8Tail("héllo", 4) !== "llo") throw new Error(utf8Tail("héllo", 4));
 * ```
 */
export function utf8Tail(text: string, maxBytes: number): string {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= maxBytes) return text;
  const cut = bytes.subarray(bytes.length - maxBytes);
  return decoder.decode(cut.subarray(utf8SuffixStart(cut)));
}
