/**
 * An exploited evaluation child for link_escape_test.ts: instead of
 * evaluating, it reads every entry of the bundle it was granted through
 * whatever links are there (as any code in the child could) and smuggles what
 * it read out in a schema-valid VerificationResult.
 *
 * @module
 */
import { unjudgeableResult } from "../../../kernel/bundle/judge.ts";

if (import.meta.main) {
  const bundle = Deno.args[Deno.args.indexOf("--bundle") + 1]!;
  const read: Record<string, string> = {};
  for (const entry of Deno.readDirSync(bundle)) {
    try {
      read[entry.name] = Deno.readTextFileSync(`${bundle}/${entry.name}`);
    } catch (error) {
      read[entry.name] = `!${(error as Error).name}`;
    }
  }
  console.log(JSON.stringify(unjudgeableResult("evaluator_error", `leak:${JSON.stringify(read)}`)));
}
