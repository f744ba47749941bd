/**
 * The source of the egress proxy helper: a small program vouch starts with
 * its own runtime (`deno eval` / `node -e`), confined in a bwrap of its own
 * that sees the host network and nothing of the filesystem but its socket
 * directory. It listens on unix sockets there: `proxy.sock`, an HTTP proxy
 * (`CONNECT host:port` for TLS, absolute-form `http://` requests, each
 * forwarded only when the host:port is allowlisted, else answered `403`), and
 * `relay-PORT.sock` per allowlisted loopback port (bytes relayed to
 * 127.0.0.1:PORT). It reports one JSON object per line on stdout (`ready`,
 * `refused`, `forwarded`, `synced` for each `{"sync":N}` line on stdin) and
 * exits when its stdin closes (vouch is gone).
 * Under deno it uses Deno's own APIs (loading the node: layer costs a start
 * ~0.1 s), under node node's builtins; the matching and parsing are shared.
 *
 * @module
 */
import { DENO_BOTH_SOURCE, NODE_BOTH_SOURCE } from "./_pipe_source.ts";

/** The helper program (an ES module; its config file is its last argument). */
export const PROXY_SOURCE = String.raw`
const DENO = typeof Deno !== "undefined";
const enc = new TextEncoder();
const cfg = JSON.parse(DENO ? Deno.readTextFileSync(Deno.args.at(-1))
  : (await import("node:fs")).readFileSync(process.argv.at(-1), "utf8"));
const MAX_HEAD = 64 * 1024;
const say = (o) => {
  if (!DENO) return process.stdout.write(JSON.stringify(o) + "\n");
  for (let b = enc.encode(JSON.stringify(o) + "\n"); b.length > 0;) b = b.subarray(Deno.stdout.writeSync(b));
};
const loop = (h) => h === "localhost" || h === "::1" || /^127\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$/.test(h);
function allowed(host, port) {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "");
  return cfg.allow.some((a) => {
    if (a.port !== port) return false;
    if (a.host === h) return true;
    if (a.host.startsWith("*.")) return h.endsWith(a.host.slice(1)) && h.length > a.host.length - 1;
    return loop(a.host) && loop(h);
  });
}
function target(method, uri) {
  if (method === "CONNECT") {
    const m = /^\[?([^\]]+?)\]?:([0-9]{1,5})$/.exec(uri);
    return m === null ? null : { host: m[1].toLowerCase(), port: Number(m[2]), path: "" };
  }
  let u;
  try { u = new URL(uri); } catch { return null; }
  if (u.protocol !== "http:") return null;
  return {
    host: u.hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase(),
    port: u.port !== "" ? Number(u.port) : 80,
    path: u.pathname + u.search,
  };
}
function originHead(lines, method, path) {
  const version = lines[0].split(" ").at(-1) || "HTTP/1.1";
  const headers = lines.slice(1).filter((l) =>
    !/^(proxy-connection|proxy-authorization|connection|keep-alive):/i.test(l));
  return [method + " " + path + " " + version, ...headers, "Connection: close", "", ""].join("\r\n");
}
const clean = (s, re, n) => String(s).replace(re, "?").slice(0, n);
// A plain-text reply that closes the connection.
function reply(status, text) {
  const body = "vouch: " + text + "\n";
  return "HTTP/1.1 " + status + "\r\nContent-Type: text/plain\r\nContent-Length: " +
    enc.encode(body).length + "\r\nConnection: close\r\n\r\n" + body;
}
// What a request head asks for: { method, t } to forward, or { status, text } to answer
// (a refusal is reported here).
function judge(lines) {
  const [method = "", uri = ""] = lines[0].split(" ");
  const t = target(method, uri);
  if (t === null || !Number.isInteger(t.port) || t.port < 1 || t.port > 65535) {
    return { status: "400 Bad Request", text: "a proxy request is CONNECT host:port or an http:// URL" };
  }
  if (!allowed(t.host, t.port)) {
    say({ refused: { host: clean(t.host, /[^a-z0-9.:*_-]/g, 253), port: t.port,
      method: clean(method, /[^A-Z]/g, 16) } });
    return { status: "403 Forbidden", text: "egress to " + t.host + ":" + t.port + " is not allowed (not a model host of this run)" };
  }
  return { method, t };
}
// Answers every complete {"sync":N} line of pending (after every report written before it:
// stdout keeps the order); returns the incomplete rest, dropped past 4 KiB.
function syncs(pending) {
  let nl;
  while ((nl = pending.indexOf("\n")) >= 0) {
    const m = /^\{"sync":([0-9]{1,9})\}$/.exec(pending.slice(0, nl));
    if (m !== null) say({ synced: Number(m[1]) });
    pending = pending.slice(nl + 1);
  }
  return pending.length > 4096 ? "" : pending;
}

if (DENO) {
  const dec = new TextDecoder("latin1");
  ${DENO_BOTH_SOURCE}
  const write = async (c, text) => {
    const b = typeof text === "string" ? enc.encode(text) : text;
    for (let off = 0; off < b.length;) off += await c.write(b.subarray(off));
  };
  const answer = async (c, status, text) => {
    try { await write(c, reply(status, text)); } catch {}
    try { c.close(); } catch {}
  };
  const proxy = async (c) => {
    let head = new Uint8Array(0);
    let end = -1;
    const buf = new Uint8Array(16384);
    try {
      while (end < 0) {
        const n = await c.read(buf);
        if (n === null) { try { c.close(); } catch {} return; }
        const h = new Uint8Array(head.length + n);
        h.set(head);
        h.set(buf.subarray(0, n), head.length);
        head = h;
        end = dec.decode(head).indexOf("\r\n\r\n");
        if (end < 0 && head.length > MAX_HEAD) return await answer(c, "431 Request Header Fields Too Large", "request head too large");
      }
    } catch {
      try { c.close(); } catch {}
      return;
    }
    const lines = dec.decode(head.subarray(0, end)).split("\r\n");
    const rest = head.subarray(end + 4);
    const asked = judge(lines);
    if (asked.status !== undefined) return await answer(c, asked.status, asked.text);
    const { method, t } = asked;
    let up;
    try {
      up = await Deno.connect({ hostname: t.host === "localhost" ? "127.0.0.1" : t.host, port: t.port });
    } catch {
      return await answer(c, "502 Bad Gateway", "cannot reach " + t.host + ":" + t.port);
    }
    say({ forwarded: { host: t.host, port: t.port, method: clean(method, /[^A-Z]/g, 16) } });
    try {
      if (method === "CONNECT") await write(c, "HTTP/1.1 200 Connection Established\r\n\r\n");
      else await write(up, originHead(lines, method, t.path));
      if (rest.length > 0) await write(up, rest);
    } catch {
      try { c.close(); } catch {}
      try { up.close(); } catch {}
      return;
    }
    both(c, up);
  };
  const relay = (port) => async (c) => {
    say({ forwarded: { host: "127.0.0.1", port, method: "relay" } });
    let up;
    try { up = await Deno.connect({ hostname: "127.0.0.1", port }); } catch { try { c.close(); } catch {} return; }
    both(c, up);
  };
  const serve = (path, handler) => {
    const s = Deno.listen({ transport: "unix", path });
    (async () => { try { for await (const c of s) handler(c); } catch {} })();
  };
  try {
    serve(cfg.dir + "/proxy.sock", proxy);
    for (const port of cfg.relays) serve(cfg.dir + "/relay-" + port + ".sock", relay(port));
  } catch (e) {
    Deno.stderr.writeSync(enc.encode("cannot listen: " + e.message + "\n"));
    Deno.exit(2);
  }
  say({ ready: true });
  const text = new TextDecoder();
  let pending = "";
  try {
    for await (const d of Deno.stdin.readable) pending = syncs(pending + text.decode(d, { stream: true }));
  } catch {}
  Deno.exit(0);
} else {
const net = (await import("node:net")).default;
${NODE_BOTH_SOURCE}
function answer(c, status, text) {
  c.end(reply(status, text));
}
function proxy(c) {
  let head = Buffer.alloc(0);
  const onData = (chunk) => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf("\r\n\r\n");
    if (end < 0) {
      if (head.length > MAX_HEAD) answer(c, "431 Request Header Fields Too Large", "request head too large");
      return;
    }
    c.off("data", onData);
    c.pause();
    const lines = head.subarray(0, end).toString("latin1").split("\r\n");
    const rest = head.subarray(end + 4);
    const asked = judge(lines);
    if (asked.status !== undefined) {
      answer(c, asked.status, asked.text);
      return;
    }
    const { method, t } = asked;
    const up = net.createConnection({ host: t.host === "localhost" ? "127.0.0.1" : t.host, port: t.port });
    up.once("error", () => { if (!c.destroyed) answer(c, "502 Bad Gateway", "cannot reach " + t.host + ":" + t.port); });
    up.once("connect", () => {
      up.removeAllListeners("error");
      say({ forwarded: { host: t.host, port: t.port, method: clean(method, /[^A-Z]/g, 16) } });
      if (method === "CONNECT") c.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      else up.write(originHead(lines, method, t.path));
      if (rest.length > 0) up.write(rest);
      both(c, up);
      c.resume();
    });
  };
  c.on("data", onData);
  c.on("error", () => c.destroy());
}
function relay(port) {
  return (c) => {
    const up = net.createConnection({ host: "127.0.0.1", port });
    say({ forwarded: { host: "127.0.0.1", port, method: "relay" } });
    both(c, up);
  };
}
const listen = (path, handler) => new Promise((ok, fail) => {
  const s = net.createServer(handler);
  s.once("error", fail);
  s.listen(path, () => ok(s));
});
try {
  await listen(cfg.dir + "/proxy.sock", proxy);
  for (const port of cfg.relays) await listen(cfg.dir + "/relay-" + port + ".sock", relay(port));
} catch (e) {
  process.stderr.write("cannot listen: " + e.message + "\n");
  process.exit(2);
}
say({ ready: true });
let pending = "";
process.stdin.on("data", (d) => {
  pending = syncs(pending + d);
});
process.stdin.on("end", () => process.exit(0));
process.stdin.on("close", () => process.exit(0));
}
`;
