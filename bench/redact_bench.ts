// Masking a transcript before it is stored: 2 MiB of Claude Code stream-json
// lines (numbers, variable names, session ids, a few real secrets), the shape
// vouch masks after every agent round (adapters/backends/transcript.ts).
import { redactSecrets } from "../adapters/redact/mod.ts";

const lines: string[] = [];
let size = 0;
for (let i = 0; size < 2 * 1024 * 1024; i++) {
  const line = JSON.stringify(
    i % 50 === 0
      ? { type: "user", message: { content: `export GITHUB_TOKEN=ghp_${"a".repeat(36)} ${i}` } }
      : {
        type: "result",
        usage: { input_tokens: 306 + i, cache_read_input_tokens: 21, output_tokens: 60 },
        modelUsage: { m: { maxOutputTokens: 128000, contextWindow: 1000000 } },
        apiKeySource: "ANTHROPIC_API_KEY",
        session_id: `b04bff7b-84c3-4212-ad0d-${String(i).padStart(12, "0")}`,
        result: "Fixed add(): it now adds its arguments. ".repeat(3),
      },
  );
  lines.push(line);
  size += line.length + 1;
}
const transcript = lines.join("\n") + "\n";

Deno.bench({ group: "redact", name: "mask a 2 MiB JSON-lines transcript", baseline: true }, () => {
  const r = redactSecrets(transcript);
  if ((r.masked["github_token"] ?? 0) === 0) throw new Error("the secrets must be masked");
});

Deno.bench({ group: "redact", name: "mask one 400-byte JSON line" }, () => {
  redactSecrets(lines[1]!);
});
