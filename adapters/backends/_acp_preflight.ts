/**
 * Whether an ACP agent can start and speaks the protocol, checked before a
 * run spends any time (before the baseline): its program exists, it starts
 * in its sandbox and answers `initialize`. The answer is one line that says
 * why not.
 *
 * @module
 */
import { stat } from "node:fs/promises";
import { runProcess } from "../process/run.ts";
import type { SandboxProfile } from "../sandbox/profile.ts";
import { failure } from "./result.ts";
import { passedEnvValues } from "./subprocess.ts";
import { maskSecrets } from "./transcript.ts";
import type { BackendFailure } from "./types.ts";
import { boundText } from "./types.ts";

/** What {@linkcode preflightAcp} needs of the backend's settings. */
export interface AcpPreflightConfig {
  readonly argv: readonly string[];
  readonly sandbox: SandboxProfile;
  readonly env?: Readonly<Record<string, string>>;
  readonly passEnv?: readonly string[];
  readonly home?: string;
  /** How long the agent may take to answer `initialize`, ms. */
  readonly timeoutMs: number;
}

/**
 * Starts the agent, sends `initialize` (protocol version 1) and waits for
 * its answer; null when it answered with a result.
 *
 * @example
 * ```ts
 * import { equal, match } from "node:assert/strict";
 * import { preflightAcp } from "./_acp_preflight.ts";
 * const sandbox = { kind: "none" } as const;
 * equal((await preflightAcp({ argv: ["no-such-acp-agent"], sandbox, timeoutMs: 5000 }))?.message, "acp: no-such-acp-agent: not found on PATH");
 * match((await preflightAcp({ argv: ["/bin/true"], sandbox, timeoutMs: 5000 }))?.message ?? "", /exited \(code 0\) before answering initialize/);
 * ```
 */
export async function preflightAcp(config: AcpPreflightConfig): Promise<BackendFailure | null> {
  const program = config.argv[0] ?? "";
  if (!program.includes("/")) return failure("config", `acp: ${program}: not found on PATH`);
  const info = await stat(program).catch(() => null);
  if (info === null) return failure("config", `acp: ${program}: no such file`);
  if (!info.isFile() || (info.mode & 0o111) === 0) {
    return failure("config", `acp: ${program}: not an executable file`);
  }
  const stop = new AbortController();
  let answer: Record<string, unknown> | null = null;
  let pending = "";
  let seen = 0;
  const timer = setTimeout(() => stop.abort(), config.timeoutMs);
  const result = await runProcess({
    argv: config.argv,
    cwd: "/",
    sandbox: config.sandbox,
    env: { ...(config.env ?? {}), ...passedEnvValues(config.passEnv ?? []) },
    ...(config.passEnv !== undefined ? { allowSecretEnv: config.passEnv } : {}),
    ...(config.home !== undefined ? { home: config.home } : {}),
    signal: stop.signal,
    maxCaptureBytes: 16 * 1024,
    openStdin: (s) => {
      s.on("error", () => {});
      s.write(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: {
            protocolVersion: 1,
            clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
          },
        }) + "\n",
      );
    },
    onStdout: (chunk) => {
      if (answer !== null) return;
      seen += chunk.length;
      pending += new TextDecoder().decode(chunk);
      for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
        const line = pending.slice(0, nl).trim();
        pending = pending.slice(nl + 1);
        try {
          const msg = JSON.parse(line);
          if (msg !== null && typeof msg === "object" && msg.id === 0 && !("method" in msg)) {
            answer = msg;
            stop.abort();
            return;
          }
        } catch { /* not JSON-RPC: keep reading */ }
      }
      // A program that prints much but never answers is not an ACP agent.
      if (seen > 1024 * 1024) stop.abort();
      if (pending.length > 64 * 1024) pending = "";
    },
  }).finally(() => clearTimeout(timer));
  const name = program.split("/").at(-1);
  const reply = answer as Record<string, unknown> | null;
  if (reply !== null) {
    if ("result" in reply) return null;
    const error = reply["error"] as { message?: unknown } | undefined;
    const why = maskSecrets(boundText(String(error?.message ?? "no result"), 300)).text;
    return failure("config", `acp: ${name} answered initialize with an error: ${why}`);
  }
  if (result.spawnError !== null) return failure("config", `acp: ${result.spawnError.message}`);
  const stderr = maskSecrets(result.stderr.head.trim().split("\n").at(-1) ?? "").text;
  const tail = stderr !== "" ? `: ${boundText(stderr, 300)}` : "";
  if (stop.signal.aborted) {
    return failure(
      "config",
      seen > 1024 * 1024
        ? `acp: ${name} does not speak ACP (1 MiB of output, no answer to initialize)`
        : `acp: ${name} did not answer initialize within ${
          Math.round(config.timeoutMs / 1000)
        } s (not an ACP agent?)${tail}`,
    );
  }
  return failure(
    "config",
    `acp: ${name} exited (code ${result.exitCode}) before answering initialize${tail}`,
  );
}
