/**
 * The entry module of the isolated evaluation child (see `isolated.ts`): it
 * evaluates one bundle and prints the VerificationResult as one line of JSON
 * on stdout. It is started with read access to its three inputs (and its own
 * code) only: by `deno run` with Deno's permission flags, or by `node` with
 * Node's permission model. It uses `node:` APIs only, so the same module runs
 * under both.
 *
 * @module
 */
import process from "node:process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { evaluateBundleInProcess } from "./evaluate.ts";

/** Whether this module is the program's entry (`import.meta.main` is Deno's; Node 20 lacks it). */
function isEntry(): boolean {
  const main = (import.meta as { main?: boolean }).main;
  if (main !== undefined) return main;
  return process.argv[1] !== undefined && process.argv[1] === fileURLToPath(import.meta.url);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
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
    process.exitCode = 2;
    return;
  }
  const result = await evaluateBundleInProcess({ bundleDir, workUnitPath, planPath });
  await new Promise<void>((resolve, reject) =>
    process.stdout.write(
      JSON.stringify(result) + "\n",
      (error) => error ? reject(error) : resolve(),
    )
  );
}

if (isEntry()) await main();
