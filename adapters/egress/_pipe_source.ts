/**
 * The one piece of JavaScript both egress helpers run under Deno: `both(a,
 * b)` copies bytes each way between two Deno connections and, when either
 * side ends or fails, closes both. Spliced into the proxy's and the
 * forwarder's source.
 *
 * @module
 */

/** The source of `both(a, b)` (Deno APIs only). */
export const DENO_BOTH_SOURCE = String.raw`const both = (a, b) => {
  let done = false;
  const end = () => {
    if (done) return;
    done = true;
    try { a.close(); } catch {}
    try { b.close(); } catch {}
  };
  const copy = async (x, y) => {
    const buf = new Uint8Array(65536);
    try {
      for (;;) {
        const n = await x.read(buf);
        if (n === null) break;
        for (let off = 0; off < n;) off += await y.write(buf.subarray(off, n));
      }
    } catch {}
    end();
  };
  copy(a, b);
  copy(b, a);
};`;
