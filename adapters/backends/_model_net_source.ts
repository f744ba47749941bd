/**
 * The model helper's script text (see `model_net.ts`): Deno APIs only, since
 * it runs only as a Deno process with `--allow-net=HOST:PORT` and nothing
 * else. Under Node vouch reaches the model with its own `fetch` and never
 * starts it.
 *
 * @module
 */

/** The helper's source (Deno APIs only): fetch each request line, answer one line. */
export const HELPER_SOURCE = String.raw`const enc = new TextEncoder();
const w = Deno.stdout.writable.getWriter();
let chain = Promise.resolve();
const send = (o) => (chain = chain.then(() => w.write(enc.encode(JSON.stringify(o) + "\n"))).catch(() => {}));
const live = new Map();
const MAX = 64 * 1024 * 1024;
const serve = async (m) => {
  const c = new AbortController();
  live.set(m.id, c);
  try {
    const r = await fetch(m.url, { method: m.method, headers: m.headers, body: m.body, signal: c.signal });
    let body = await r.text();
    if (body.length > MAX) body = body.slice(0, MAX);
    send({ id: m.id, status: r.status, headers: [...r.headers], body });
  } catch (e) {
    send({ id: m.id, error: String(e && e.message || e) });
  } finally {
    live.delete(m.id);
  }
};
const dec = new TextDecoder();
let buf = "";
for await (const chunk of Deno.stdin.readable) {
  buf += dec.decode(chunk, { stream: true });
  for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
    const line = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    let m;
    try { m = JSON.parse(line); } catch { continue; }
    if (m.abort) live.get(m.id)?.abort();
    else serve(m);
  }
}
`;
