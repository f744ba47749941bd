/**
 * A real `redis-server` on 127.0.0.1 for the fleet tests and the batch bench:
 * where the binary is (null when not installed, so callers skip with a
 * reason) and a throwaway server on a free port with no persistence.
 */
import { join } from "node:path";

/** The `redis-server` on PATH, or null. */
export function redisServerPath(): string | null {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      if (Deno.statSync(join(dir, "redis-server")).isFile) return join(dir, "redis-server");
    } catch { /* not here */ }
  }
  return null;
}

/** A running throwaway server. */
export interface RedisServer {
  readonly port: number;
  /** `redis://127.0.0.1:PORT`. */
  readonly url: string;
  /** Stops it (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
}

/** Starts `redis-server` at `path` on a free loopback port, without saving anything. */
export function startRedis(path: string): RedisServer {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  const child = new Deno.Command(path, {
    args: ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}
