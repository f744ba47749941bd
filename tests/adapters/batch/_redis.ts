/**
 * A real `redis-server` on 127.0.0.1 for the fleet tests and the batch bench:
 * where the binary is (null when not installed, so callers skip with a
 * reason) and a throwaway server on a free port with no persistence, with a
 * password (`requirepass`) or an ACL user, and `redis-cli` to poke at it as an
 * attacker with the password would.
 */
import { join } from "node:path";

function onPath(name: string): string | null {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      if (Deno.statSync(join(dir, name)).isFile) return join(dir, name);
    } catch { /* not here */ }
  }
  return null;
}

/** The `redis-server` on PATH, or null. */
export function redisServerPath(): string | null {
  return onPath("redis-server");
}

/** The `redis-cli` on PATH, or null. */
export function redisCliPath(): string | null {
  return onPath("redis-cli");
}

/** How the throwaway server authenticates. */
export interface RedisAuth {
  /** `requirepass` (the default user's password). @default "vouch-test-pw" */
  readonly password?: string;
  /** An ACL user with `password` (the default user is then disabled). */
  readonly user?: string;
  /** No credentials at all (an open Redis, for the refusal tests). */
  readonly open?: boolean;
  /** TLS only (no plain port): PEM files of the server's certificate and key. */
  readonly tls?: { readonly cert: string; readonly key: string };
}

/** A running throwaway server. */
export interface RedisServer {
  readonly port: number;
  /** `redis://[USER]:PASSWORD@127.0.0.1:PORT` (no credentials for an open server). */
  readonly url: string;
  /** `redis://127.0.0.1:PORT`, without credentials. */
  readonly bareUrl: string;
  /** The password, or null for an open server. */
  readonly password: string | null;
  /** Runs `redis-cli` against it with its credentials; stdout, trimmed. */
  cli(...args: string[]): Promise<string>;
  /** Stops it (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Starts `redis-server` at `path` on a free loopback port, without saving
 * anything; with `requirepass` unless `auth.open`, or with an ACL user.
 */
export function startRedis(path: string, auth: RedisAuth = {}): RedisServer {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  const password = auth.open ? null : auth.password ?? "vouch-test-pw";
  const authArgs = password === null
    ? []
    : auth.user !== undefined
    ? ["--user", auth.user, "on", `>${password}`, "~*", "&*", "+@all", "--user", "default", "off"]
    : ["--requirepass", password];
  const portArgs = auth.tls === undefined ? ["--port", String(port)] : [
    "--port",
    "0",
    "--tls-port",
    String(port),
    "--tls-cert-file",
    auth.tls.cert,
    "--tls-key-file",
    auth.tls.key,
    "--tls-auth-clients",
    "no",
  ];
  const child = new Deno.Command(path, {
    args: [
      ...portArgs,
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      ...authArgs,
    ],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const bareUrl = `redis://127.0.0.1:${port}`;
  const cred = password === null
    ? ""
    : `${encodeURIComponent(auth.user ?? "")}:${encodeURIComponent(password)}@`;
  return {
    port,
    url: `redis${auth.tls === undefined ? "" : "s"}://${cred}127.0.0.1:${port}`,
    bareUrl,
    password,
    async cli(...args: string[]) {
      const cli = redisCliPath();
      if (cli === null) throw new Error("redis-cli is not installed");
      const login = password === null
        ? []
        : [...(auth.user !== undefined ? ["--user", auth.user] : []), "-a", password];
      const out = await new Deno.Command(cli, {
        args: ["-h", "127.0.0.1", "-p", String(port), "--no-auth-warning", ...login, ...args],
        stdin: "null",
      }).output();
      if (!out.success) {
        throw new Error(`redis-cli ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
      }
      return new TextDecoder().decode(out.stdout).trim();
    },
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}
