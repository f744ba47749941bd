/**
 * Bounded splitting of a byte stream into lines for JSONL protocols.
 *
 * @module
 */

/** One line cut from a stream. */
export interface StreamLine {
  /** 1-based line number. */
  readonly number: number;
  /** The decoded line (without the newline), at most `maxLineBytes` bytes of it. */
  readonly text: string;
  /** The line was longer than the bound; `text` holds only its head. */
  readonly tooLong: boolean;
  /** The stream ended without a newline after this line. */
  readonly unterminated: boolean;
}

/**
 * Splits a stream into lines with a per-line byte bound; memory stays bounded
 * however long a line is (an overlong line keeps only its head).
 *
 * @example
 * ```ts
 * import { LineSplitter } from "./line_splitter.ts";
 * const s = new LineSplitter(1024);
 * const lines = [...s.push(new TextEncoder().encode("a\nb")), ...s.end()];
 * if (lines.length !== 2 || !lines[1]!.unterminated) throw new Error();
 * ```
 */
export class LineSplitter {
  readonly #max: number;
  #parts: Uint8Array[] = [];
  #kept = 0;
  #dropped = false;
  #number = 0;
  readonly #decoder = new TextDecoder("utf-8", { fatal: false });

  /** A splitter keeping at most `maxLineBytes` bytes of each line. */
  constructor(maxLineBytes: number) {
    this.#max = maxLineBytes;
  }

  /** Feeds bytes; returns the lines completed by them. */
  push(chunk: Uint8Array): StreamLine[] {
    const out: StreamLine[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl < 0) {
        this.#keep(chunk.subarray(start));
        return out;
      }
      if (this.#kept === 0 && !this.#dropped && nl - start <= this.#max) {
        // Fast path: the whole line is inside this chunk.
        out.push(this.#line(this.#decoder.decode(chunk.subarray(start, nl)), false, false));
      } else {
        this.#keep(chunk.subarray(start, nl));
        out.push(this.#emit(false));
      }
      start = nl + 1;
    }
  }

  /** Ends the stream; returns the last line if it had no trailing newline. */
  end(): StreamLine[] {
    if (this.#kept === 0 && !this.#dropped) return [];
    return [this.#emit(true)];
  }

  #keep(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    const room = this.#max - this.#kept;
    if (room <= 0) {
      this.#dropped = true;
      return;
    }
    const take = bytes.length <= room ? bytes : bytes.subarray(0, room);
    if (take.length < bytes.length) this.#dropped = true;
    this.#parts.push(take.slice());
    this.#kept += take.length;
  }

  #emit(unterminated: boolean): StreamLine {
    const all = new Uint8Array(this.#kept);
    let off = 0;
    for (const p of this.#parts) {
      all.set(p, off);
      off += p.length;
    }
    const line = this.#line(this.#decoder.decode(all), this.#dropped, unterminated);
    this.#parts = [];
    this.#kept = 0;
    this.#dropped = false;
    return line;
  }

  #line(decoded: string, tooLong: boolean, unterminated: boolean): StreamLine {
    const text = decoded.endsWith("\r") ? decoded.slice(0, -1) : decoded;
    this.#number += 1;
    return { number: this.#number, text, tooLong, unterminated };
  }
}
