/**
 * A probe run under exactly the isolated evaluator's permission flags (see
 * isolated_test.ts): it tries each forbidden capability and prints, as JSON,
 * which attempts were refused. It also imports the evaluator (and so zod) to
 * prove the npm dependency resolves under the restricted read permission.
 *
 * @module
 */
import { parseStrictJson } from "../../../adapters/bundle/strict_json.ts";
import { VerificationResultSchema } from "../../../adapters/bundle/schemas.ts";

async function attempt(fn: () => Promise<unknown> | unknown): Promise<string> {
  try {
    await fn();
    return "allowed";
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable) return "NotCapable";
    if (error instanceof Deno.errors.PermissionDenied) return "PermissionDenied";
    return `error:${(error as Error).name}:${(error as Error).message}`;
  }
}

if (import.meta.main) {
  const allowedFile = Deno.args[0]!;
  const report = {
    zodLoaded: typeof VerificationResultSchema.safeParse === "function",
    readAllowed: await attempt(() => Deno.readTextFile(allowedFile)),
    parsedAllowed: await attempt(() => parseStrictJson(Deno.readFileSync(allowedFile))),
    readEtcPasswd: await attempt(() => Deno.readTextFile("/etc/passwd")),
    readCwd: await attempt(() => Deno.readDir(".")[Symbol.asyncIterator]().next()),
    writeTmp: await attempt(() => Deno.writeTextFile("/tmp/vouch-probe-should-not-exist", "x")),
    env: await attempt(() => Deno.env.get("HOME")),
    net: await attempt(() => Deno.connect({ hostname: "127.0.0.1", port: 8080 })),
    run: await attempt(() => new Deno.Command("/bin/true").output()),
  };
  console.log(JSON.stringify(report));
}
