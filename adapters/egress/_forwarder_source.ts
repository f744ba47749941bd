/**
 * The in-namespace side of the egress bridge, as the source of a small script
 * run by node or deno inside the agent's sandbox: it listens on 127.0.0.1 of
 * the sandbox's own network namespace (the HTTP proxy port and each
 * allowlisted loopback port), relays every connection to vouch's unix socket
 * for it, and once all listeners are up and vouch has opened the gate (a file
 * saying `open` once the proxy listens; `closed` or no word within two
 * minutes: exit 125, the agent never starts) starts the agent with the proxy
 * variables set, passing its exit code or signal through. Under deno it uses
 * Deno's own APIs (loading the node: layer costs a start ~0.1 s), under node
 * node's.
 *
 * @module
 */
import { DENO_BOTH_SOURCE, NODE_BOTH_SOURCE } from "./_pipe_source.ts";

/** The script (ES module: runs under deno with Deno APIs, under node with node: modules). */
export const FORWARDER_SOURCE = String.raw`// vouch egress forwarder (generated)
const SIGNALS = { SIGKILL: 9, SIGTERM: 15, SIGINT: 2, SIGHUP: 1, SIGQUIT: 3 };
const say = (text) => (typeof Deno !== "undefined"
  ? Deno.stderr.writeSync(new TextEncoder().encode("vouch egress: " + text + "\n"))
  : process.stderr.write("vouch egress: " + text + "\n"));
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
// The gate: the agent starts only once vouch's proxy listens (fail closed).
async function gate(read, exit) {
  const waitUntil = Date.now() + 120000;
  for (;;) {
    let word = "";
    try { word = read(cfg.gate); } catch {}
    if (word === "open") return;
    if (word === "closed" || Date.now() > waitUntil) {
      say("the egress proxy did not start; the agent is not started");
      exit(125);
    }
    await sleep(5);
  }
}
let cfg;
if (typeof Deno !== "undefined") {
  cfg = JSON.parse(Deno.readTextFileSync(Deno.args[0]));
  const argv = Deno.args.slice(1);
  ${DENO_BOTH_SOURCE}
  const relay = async (c, path) => {
    let u;
    try { u = await Deno.connect({ transport: "unix", path }); } catch { try { c.close(); } catch {} return; }
    both(c, u);
  };
  for (const l of cfg.listen) {
    let server;
    try {
      server = Deno.listen({ hostname: l.host, port: l.port, transport: "tcp" });
    } catch (e) {
      if (l.optional) continue;
      say("cannot listen in the sandbox: " + e.message);
      Deno.exit(125);
    }
    (async () => { try { for await (const c of server) relay(c, l.socket); } catch {} })();
  }
  await gate((p) => Deno.readTextFileSync(p), (code) => Deno.exit(code));
  const env = { ...Deno.env.toObject(), ...cfg.env };
  for (const name of cfg.unset) delete env[name];
  let child;
  try {
    child = new Deno.Command(argv[0], { args: argv.slice(1), env, clearEnv: true,
      stdin: "inherit", stdout: "inherit", stderr: "inherit" }).spawn();
  } catch (e) {
    say("cannot start " + argv[0] + ": " + e.message);
    Deno.exit(e instanceof Deno.errors.NotFound ? 127 : 126);
  }
  const handlers = ["SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT"].map((sig) => {
    const h = () => { try { child.kill(sig); } catch {} };
    Deno.addSignalListener(sig, h);
    return [sig, h];
  });
  const st = await child.status;
  if (st.signal !== null) {
    for (const [sig, h] of handlers) Deno.removeSignalListener(sig, h);
    try { Deno.kill(Deno.pid, st.signal); } catch {}
    setTimeout(() => Deno.exit(128 + (SIGNALS[st.signal] ?? 1)), 50);
  } else {
    Deno.exit(st.code);
  }
} else {
  const net = (await import("node:net")).default;
  const { spawn } = await import("node:child_process");
  const { readFileSync } = await import("node:fs");
  cfg = JSON.parse(readFileSync(process.argv[2], "utf8"));
  const argv = process.argv.slice(3);
  ${NODE_BOTH_SOURCE}
  const listen = (l) => new Promise((ok, fail) => {
    const server = net.createServer((c) => both(c, net.connect(l.socket)));
    server.once("error", (e) => (l.optional ? ok() : fail(e)));
    server.listen({ host: l.host, port: l.port, exclusive: true }, () => ok());
  });
  try {
    await Promise.all(cfg.listen.map(listen));
  } catch (e) {
    say("cannot listen in the sandbox: " + e.message);
    process.exit(125);
  }
  await gate((p) => readFileSync(p, "utf8"), (code) => process.exit(code));
  const env = { ...process.env, ...cfg.env };
  for (const name of cfg.unset) delete env[name];
  const child = spawn(argv[0], argv.slice(1), { stdio: "inherit", env });
  for (const sig of ["SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT"]) {
    process.on(sig, () => child.kill(sig));
  }
  child.on("error", (e) => {
    say("cannot start " + argv[0] + ": " + e.message);
    process.exit(e.code === "ENOENT" ? 127 : 126);
  });
  child.on("exit", (code, signal) => {
    if (signal !== null) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
      setTimeout(() => process.exit(128 + (SIGNALS[signal] ?? 1)), 50);
    } else {
      process.exit(code ?? 1);
    }
  });
}
`;
