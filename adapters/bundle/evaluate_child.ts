/**
 * The entry module of the isolated evaluation child (see `isolated.ts`): it
 * evaluates one bundle and prints the VerificationResult as one line of JSON
 * on stdout. It is started with read access to its three inputs only.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { evaluateBundle } from "./evaluate.ts";

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    strict: true,
    options: {
      bundle: { type: "string" },
      "work-unit": { type: "string" },
      plan: { type: "string" },
    },
  });
  const bundleDir = values.bundle;
  const workUnitPath = values["work-unit"];
  const planPath = values.plan;
  if (bundleDir === undefined || workUnitPath === undefined || planPath === undefined) {
    console.error("evaluate_child: --bundle, --work-unit and --plan are required");
    Deno.exit(2);
  }
  const result = await evaluateBundle({ bundleDir, workUnitPath, planPath });
  await Deno.stdout.write(new TextEncoder().encode(JSON.stringify(result) + "\n"));
}
