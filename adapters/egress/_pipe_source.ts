/**
 * The pieces of JavaScript both egress helpers share: `both(a, b)` copies
 * bytes each way between two connections and, when either side ends or fails,
 * closes both; one for Deno's connections, one for node's sockets. Spliced
 * into the proxy's and the forwarder's source.
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

/** The source of `both(a, b)` for two `node:net` sockets. */
export const NODE_BOTH_SOURCE = String.raw`function both(a, b) {
  a.pipe(b);
  b.pipe(a);
  a.on("error", () => b.destroy());
  b.on("error", () => a.destroy());
  a.on("close", () => b.destroy());
  b.on("close", () => a.destroy());
}`;
