/**
 * The in-namespace side of the egress bridge, as the source of a small script
 * run by node or deno inside the agent's sandbox: it listens on 127.0.0.1 of
 * the sandbox's own network namespace (the HTTP proxy port and each
 * allowlisted loopback port), relays every connection to vouch's unix socket
 * for it, and once all listeners are up and vouch has opened the gate (a file
 * saying `open` once the proxy listens; `closed` or no word within two
 * minutes: exit 125, the agent never starts) starts the agent with the proxy
 * variables set, passing its exit code or signal through.
 *
 * @module
 */

/** The script (ES module, node: imports only: runs under node and deno). */
export const FORWARDER_SOURCE = `// vouch egress forwarder (generated)
import net from "node:net";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import process from "node:process";

const cfg = JSON.parse(readFileSync(process.argv[2], "utf8"));
const argv = process.argv.slice(3);
const listen = (l) => new Promise((ok, fail) => {
  const server = net.createServer((c) => {
    const u = net.connect(l.socket);
    c.pipe(u);
    u.pipe(c);
    c.on("error", () => u.destroy());
    u.on("error", () => c.destroy());
    c.on("close", () => u.destroy());
    u.on("close", () => c.destroy());
  });
  server.once("error", (e) => (l.optional ? ok() : fail(e)));
  server.listen({ host: l.host, port: l.port, exclusive: true }, () => ok());
});
try {
  await Promise.all(cfg.listen.map(listen));
} catch (e) {
  process.stderr.write("vouch egress: cannot listen in the sandbox: " + e.message + "\\n");
  process.exit(125);
}
// The gate: the agent starts only once vouch's proxy listens (fail closed).
const waitUntil = Date.now() + 120000;
for (;;) {
  let word = "";
  try { word = readFileSync(cfg.gate, "utf8"); } catch {}
  if (word === "open") break;
  if (word === "closed" || Date.now() > waitUntil) {
    process.stderr.write("vouch egress: the egress proxy did not start; the agent is not started\\n");
    process.exit(125);
  }
  await sleep(5);
}
const env = { ...process.env, ...cfg.env };
for (const name of cfg.unset) delete env[name];
const child = spawn(argv[0], argv.slice(1), { stdio: "inherit", env });
for (const sig of ["SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT"]) {
  process.on(sig, () => child.kill(sig));
}
child.on("error", (e) => {
  process.stderr.write("vouch egress: cannot start " + argv[0] + ": " + e.message + "\\n");
  process.exit(e.code === "ENOENT" ? 127 : 126);
});
child.on("exit", (code, signal) => {
  if (signal !== null) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    setTimeout(() => process.exit(128 + (({ SIGKILL: 9, SIGTERM: 15, SIGINT: 2, SIGHUP: 1 })[signal] ?? 1)), 50);
  } else {
    process.exit(code ?? 1);
  }
});
`;
