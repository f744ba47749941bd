import { z } from "zod";
import { parseOutputExpectation } from "../../kernel/contract/json.ts";
import type {
  ContractCheck,
  DifferentialExpect,
  Expectation,
  OutcomeContract,
  TestFormat,
} from "../../kernel/contract/types.ts";
import type { ContractFile } from "./_file_types.ts";
import { TEST_FORMATS } from "../test_failures/parse.ts";

export type * from "./_file_types.ts";

/** Default per-check timeout, seconds. */
export const DEFAULT_CHECK_TIMEOUT_SECS = 120;
/** Ceiling of a per-check timeout, seconds. */
export const MAX_CHECK_TIMEOUT_SECS = 600;
/** Default timeout of each setup command, seconds. */
export const DEFAULT_SETUP_TIMEOUT_SECS = 600;
/** Ceiling of a setup command's timeout, seconds. */
export const MAX_SETUP_TIMEOUT_SECS = 3600;

const noNul = (s: string) => !s.includes("\0");

const runSchema = z.lazy(() =>
  z.union([
    z.string().min(1).max(10_000).refine(noNul, "must not contain NUL"),
    z.array(z.string().max(10_000).refine(noNul, "must not contain NUL")).min(1).max(1000)
      .refine((a) => (a[0] ?? "x").length > 0, "program must not be empty"),
  ]).describe("argv array (spawned directly) or shell string (run as `sh -c`)")
);

const expectSchema = z.lazy(() =>
  z.strictObject({
    exitZero: z.boolean().optional().describe("the command must exit 0 (default true)"),
    outputContains: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional()
      .describe(
        "substring(s) of stdout or stderr; `$json:<pointer>=<json>` compares a JSON value on stdout",
      ),
  })
);

const differentialSchema = z.lazy(() =>
  z.strictObject({
    against: z.string().min(1).describe("name of a `baseline: true` check"),
    expect: z.union([
      z.literal("changed"),
      z.literal("unchanged"),
      z.strictObject({
        deltaWithin: z.tuple([z.number().nullable(), z.number().nullable()])
          .describe("[min, max] of after - before; null = unbounded"),
      }),
    ]),
  })
);

const testListSchema = z.lazy(() =>
  z.array(z.string().min(1).max(2000).refine(noNul, "must not contain NUL"))
    .max(100_000)
);

const checkSchema = z.lazy(() =>
  z.strictObject({
    // deno-lint-ignore no-control-regex
    name: z.string().min(1).max(100).regex(/^[^\x00-\x1f]+$/, "must be printable"),
    run: runSchema,
    expect: expectSchema.optional(),
    timeout: z.number().positive().max(MAX_CHECK_TIMEOUT_SECS).optional()
      .describe(
        `seconds (default ${DEFAULT_CHECK_TIMEOUT_SECS}, at most ${MAX_CHECK_TIMEOUT_SECS})`,
      ),
    baseline: z.boolean().optional().describe("capture-only: run on the unmodified tree"),
    differential: differentialSchema.optional(),
    tests: z.enum(TEST_FORMATS).optional()
      .describe(
        "parse failing tests; exit!=0 without failures or exit 0 without tests is inconclusive",
      ),
    failToPass: testListSchema.optional().describe(
      "test ids that must fail on the base and pass after the change (needs tests; SWE-bench FAIL_TO_PASS)",
    ),
    passToPass: testListSchema.optional().describe(
      "test ids that must pass on the base and after the change (needs tests; SWE-bench PASS_TO_PASS)",
    ),
  })
);

const setupSchema = z.lazy(() =>
  z.strictObject({
    commands: z.array(runSchema).min(1).max(50)
      .describe("run in order in the clean tree before the baseline and before each verification"),
    timeout: z.number().positive().max(MAX_SETUP_TIMEOUT_SECS).optional()
      .describe(
        `seconds per command (default ${DEFAULT_SETUP_TIMEOUT_SECS}, at most ${MAX_SETUP_TIMEOUT_SECS})`,
      ),
    network: z.enum(["deny", "allow"]).optional()
      .describe(
        "allow: setup needs the network (e.g. npm ci); also needs --allow-setup-network (default deny)",
      ),
  }).describe("dependency installation in the clean tree (e.g. npm ci); recorded with receipts")
);

const limitSchema = (max: number, what: string) =>
  z.number().int().positive().max(max).optional().describe(what);

const limitsSchema = (who: "check" | "agent") =>
  z.strictObject({
    memoryMb: limitSchema(1024 * 1024, `resident memory of each ${who}'s process tree, MiB`),
    processes: limitSchema(100_000, `processes alive at once per ${who}`),
    fileSizeMb: limitSchema(1024 * 1024, `largest file a ${who} may write, MiB`),
    tmpMb: limitSchema(1024 * 1024, `size of each ${who}'s private /tmp and /dev/shm, MiB`),
    diskMb: limitSchema(
      1024 * 1024 * 1024,
      `how much each ${who} may grow its tree (allocated bytes before and after), MiB`,
    ),
    cpuSeconds: limitSchema(
      7 * 24 * 3600,
      `CPU time of each process of a ${who}, seconds (RLIMIT_CPU; default: only the timeout)`,
    ),
  });

const sandboxSchema = z.lazy(() =>
  z.strictObject({
    readOnly: z.array(
      z.string().min(2).max(4096).refine((p) => p.startsWith("/"), "must be an absolute path")
        .refine(noNul, "must not contain NUL"),
    ).max(100).optional()
      .describe("absolute paths outside the tree the checks need, mounted read-only"),
    limits: limitsSchema("check").optional(),
    agentLimits: limitsSchema("agent").optional(),
  }).describe("what the checks' sandbox must also show, and its limits (recorded in receipts)")
);

const contractFileObject = z.lazy(() =>
  z.strictObject({
    $schema: z.string().optional(),
    version: z.literal(1).optional(),
    description: z.string().max(10_000).optional(),
    checks: z.array(checkSchema).min(1).max(200),
    protect: z.array(z.string().min(1).max(1000)).max(1000).optional()
      .describe("globs of paths a patch may not touch"),
    setup: setupSchema.optional(),
    sandbox: sandboxSchema.optional(),
    testsEditable: z.boolean().optional()
      .describe(
        "the patch may redefine the tests: a patch touching test files is graded against its " +
          "own tests only (default false: also against the base's tests)",
      ),
  }).superRefine((file, ctx) => {
    for (const issue of contractIssues(file)) ctx.addIssue({ code: "custom", ...issue });
  })
);

type CheckEntry = z.infer<typeof checkSchema>;

/** One rule a contract file breaks, where. */
interface Issue {
  readonly path: (string | number)[];
  readonly message: string;
}

/** What no single field's schema can see: names, baselines, test lists, differentials, asserts. */
function contractIssues(file: { readonly checks: readonly CheckEntry[] }): Issue[] {
  const names = new Map<string, number>();
  const issues: Issue[] = [];
  file.checks.forEach((c, i) => {
    if (names.has(c.name)) {
      issues.push({ path: ["checks", i, "name"], message: `duplicate check name "${c.name}"` });
    }
    names.set(c.name, i);
  });
  file.checks.forEach((c, i) => {
    const at = (...p: (string | number)[]) => ["checks", i, ...p];
    issues.push(...outputContainsIssues(c, at));
    if (c.baseline) issues.push(...baselineIssues(c, at));
    else {
      issues.push(...testListIssues(c, at));
      issues.push(...differentialIssues(c, at, (name) => {
        const target = names.get(name);
        return target !== undefined && file.checks[target]!.baseline === true;
      }));
      if (!asserts(c)) {
        issues.push({
          path: at("expect"),
          message: "check asserts nothing (exitZero false, no outputContains, no differential)",
        });
      }
    }
  });
  if (file.checks.every((c) => c.baseline)) {
    issues.push({
      path: ["checks"],
      message: "contract gates nothing: every check is a baseline capture",
    });
  }
  return issues;
}

type At = (...p: (string | number)[]) => (string | number)[];

function outputContains(c: CheckEntry): string[] {
  const contains = c.expect?.outputContains;
  return contains === undefined ? [] : typeof contains === "string" ? [contains] : contains;
}

/** Each `$json:<pointer>=<json>` expectation that does not parse. */
function outputContainsIssues(c: CheckEntry, at: At): Issue[] {
  const single = typeof c.expect?.outputContains === "string";
  return outputContains(c).flatMap((text, j) =>
    parseOutputExpectation(text) !== null ? [] : [{
      path: at("expect", "outputContains", ...(single ? [] : [j])),
      message:
        "malformed $json:<pointer>=<json> (pointer must be empty or start with /, value must be JSON)",
    }]
  );
}

/** A baseline check captures only: no differential, expect, tests or test lists. */
function baselineIssues(c: CheckEntry, at: At): Issue[] {
  const issues: Issue[] = [];
  if (c.differential) {
    issues.push({ path: at("differential"), message: "a baseline check cannot be differential" });
  }
  if (c.expect) {
    issues.push({ path: at("expect"), message: "a baseline check is capture-only: no expect" });
  }
  if (c.tests) {
    issues.push({ path: at("tests"), message: "a baseline check is capture-only: no tests" });
  }
  if (c.failToPass || c.passToPass) {
    issues.push({
      path: at(c.failToPass ? "failToPass" : "passToPass"),
      message: "a baseline check is capture-only: no test lists",
    });
  }
  return issues;
}

function testLists(c: CheckEntry): string[] {
  return [...(c.failToPass ?? []), ...(c.passToPass ?? [])];
}

/** Test lists need a `tests` format, and list each test once. */
function testListIssues(c: CheckEntry, at: At): Issue[] {
  const issues: Issue[] = [];
  const lists = testLists(c);
  const where = at(c.failToPass ? "failToPass" : "passToPass");
  if ((c.failToPass || c.passToPass) && !c.tests) {
    issues.push({ path: where, message: "test lists need `tests` (the output format to parse)" });
  }
  if (new Set(lists).size !== lists.length) {
    issues.push({
      path: where,
      message: "a test id is listed twice (within or across failToPass and passToPass)",
    });
  }
  return issues;
}

/** A differential compares against a baseline check, within a bound that is one. */
function differentialIssues(c: CheckEntry, at: At, isBaseline: (name: string) => boolean) {
  if (!c.differential) return [];
  const issues: Issue[] = [];
  if (!isBaseline(c.differential.against)) {
    issues.push({
      path: at("differential", "against"),
      message: `"${c.differential.against}" is not the name of a baseline check`,
    });
  }
  const e = c.differential.expect;
  if (typeof e !== "object") return issues;
  const [min, max] = e.deltaWithin;
  const where = at("differential", "expect", "deltaWithin");
  if (min === null && max === null) {
    issues.push({ path: where, message: "deltaWithin needs at least one bound" });
  } else if (min !== null && max !== null && min > max) {
    issues.push({ path: where, message: "deltaWithin min is above max" });
  }
  return issues;
}

/** Whether a gating check asserts anything: exit zero, output, a differential or test lists. */
function asserts(c: CheckEntry): boolean {
  const lists = testLists(c);
  return (c.expect?.exitZero ?? lists.length === 0) || outputContains(c).length > 0 ||
    c.differential !== undefined || lists.length > 0;
}

/** The zod schema of a contract file. */
export const contractFileSchema: z.ZodType<ContractFile> = contractFileObject;

// The hand-written types (_file_types.ts) are exactly what the schema parses to (checked by the compiler).
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true
  : false;
type _ContractFileIsExact = AssertTrue<Same<z.infer<typeof contractFileObject>, ContractFile>>;
type AssertTrue<T extends true> = T;

function toDifferentialExpect(
  e: NonNullable<ContractFile["checks"][number]["differential"]>["expect"],
): DifferentialExpect {
  if (e === "changed") return { kind: "changed" };
  if (e === "unchanged") return { kind: "unchanged" };
  return { kind: "delta-within", min: e.deltaWithin[0], max: e.deltaWithin[1] };
}

/**
 * Converts a validated contract file into the kernel's model.
 *
 * @example
 * ```ts
 * import { contractFileSchema, toOutcomeContract } from "./schema.ts";
 * const c = toOutcomeContract(contractFileSchema.parse({ checks: [{ name: "t", run: "true" }] }));
 * if (c.checks[0]?.expect[0]?.kind !== "exit-zero") throw new Error();
 * const s = toOutcomeContract(contractFileSchema.parse({
 *   checks: [{ name: "t", run: "npm test" }],
 *   setup: { commands: ["npm ci"], network: "allow" },
 * }));
 * if (s.setup?.network !== "allow" || s.setup.timeoutMs !== 600_000) throw new Error();
 * ```
 */
export function toOutcomeContract(file: ContractFile): OutcomeContract {
  const checks: ContractCheck[] = file.checks.map((c) => {
    const expect: Expectation[] = [];
    const baseline = c.baseline ?? false;
    const hasLists = c.failToPass !== undefined || c.passToPass !== undefined;
    if (!baseline) {
      // With test lists the listed tests decide, not the suite's exit code (as in SWE-bench).
      if (c.expect?.exitZero ?? !hasLists) expect.push({ kind: "exit-zero" });
      const contains = c.expect?.outputContains;
      for (
        const text of contains === undefined
          ? []
          : typeof contains === "string"
          ? [contains]
          : contains
      ) {
        expect.push(parseOutputExpectation(text)!);
      }
    }
    return {
      name: c.name,
      run: typeof c.run === "string" ? { shell: c.run } : { argv: c.run },
      expect,
      // At least 1 ms: a positive timeout never rounds to "no time at all".
      timeoutMs: Math.max(1, Math.round((c.timeout ?? DEFAULT_CHECK_TIMEOUT_SECS) * 1000)),
      baseline,
      differential: c.differential
        ? { against: c.differential.against, expect: toDifferentialExpect(c.differential.expect) }
        : null,
      tests: (c.tests ?? null) as TestFormat | null,
      ...(hasLists
        ? { testLists: { failToPass: c.failToPass ?? [], passToPass: c.passToPass ?? [] } }
        : {}),
    };
  });
  const contract: OutcomeContract = {
    description: file.description ?? "",
    checks,
    protect: file.protect ?? [],
    ...(file.testsEditable !== undefined ? { testsEditable: file.testsEditable } : {}),
    ...(file.sandbox !== undefined
      ? {
        sandbox: {
          readOnly: file.sandbox.readOnly ?? [],
          limits: Object.fromEntries(
            Object.entries(file.sandbox.limits ?? {}).filter(([, v]) => v !== undefined),
          ),
          agentLimits: Object.fromEntries(
            Object.entries(file.sandbox.agentLimits ?? {}).filter(([, v]) => v !== undefined),
          ),
        },
      }
      : {}),
  };
  if (file.setup === undefined) return contract;
  return {
    ...contract,
    setup: {
      commands: file.setup.commands.map((r) => typeof r === "string" ? { shell: r } : { argv: r }),
      timeoutMs: Math.max(1, Math.round((file.setup.timeout ?? DEFAULT_SETUP_TIMEOUT_SECS) * 1000)),
      network: file.setup.network ?? "deny",
    },
  };
}

/**
 * The JSON Schema (draft 2020-12) of the contract file, for editors and for
 * model generators.
 *
 * @example
 * ```ts
 * import { contractJsonSchema } from "./schema.ts";
 * if (contractJsonSchema().type !== "object") throw new Error();
 * ```
 */
export function contractJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(contractFileSchema, { io: "input" }) as Record<string, unknown>;
}
