/**
 * Writes the JSON Schema (draft 2020-12) of every document vouch reads or
 * writes to `schemas/<name>.schema.json`: generated from the zod schemas that
 * guard those boundaries (bundle documents, the contract file with its
 * cross-field rules, tool receipts, the VerifiedPatch record) and, for what has
 * no zod schema (event log record bodies, the `--json` of verify, run, scope,
 * inspect and attest verify), from the TypeScript types in
 * `tools/_output_types.ts` (ts-json-schema-generator). `--check` exits 1 when a
 * committed file is missing or stale instead of writing.
 *
 *   deno task schemas [--check]
 *
 * @module
 */
import { z } from "zod";
import { BUNDLE_SCHEMAS, bundleJsonSchema } from "../adapters/bundle/schemas.ts";
import { contractJsonSchema } from "../adapters/contract/schema.ts";
import { ToolReceiptSchema } from "../adapters/receipts/receipt.ts";
import { VerifiedPatchJsonSchema } from "../adapters/verified_patch/verified_patch.ts";
import { strictContractSchema } from "./_contract_rules.ts";
import { typeSchemas } from "./_ts_schemas.ts";
import { batchJsonSchemas, batchReportSchema, keyVerdictSchema } from "../adapters/batch/schema.ts";

/** The schemas directory at the repository root. */
export const SCHEMAS_DIR: URL = new URL("../schemas/", import.meta.url);

/**
 * Schemas written by hand, not generated: the external specifications' field
 * rules (in-toto Statement v1, SLSA VSA v1, in-toto test-result v0.1, DSSE),
 * transcribed from the specs so that tests check vouch's output against the
 * spec rather than against vouch's own zod, and vouch's own predicate. The
 * tool never writes them; the freshness test only requires that they exist.
 */
export const HAND_WRITTEN_SCHEMAS: readonly string[] = [
  "dsse-envelope.schema.json",
  "in-toto-statement-v1.schema.json",
  "in-toto-test-result-v0.1.schema.json",
  "slsa-verification-summary-v1.schema.json",
  "vouch-verification-summary-v1.schema.json",
];

/**
 * The file name and content of every generated schema.
 *
 * @example
 * ```ts
 * import { exportedSchemas } from "./export_schemas.ts";
 * if (!exportedSchemas().some((s) => s.file === "work-unit-v0.1.schema.json")) throw new Error();
 * ```
 */
export function exportedSchemas(): { file: string; schema: Record<string, unknown> }[] {
  const bundle = Object.keys(BUNDLE_SCHEMAS).map((name) => ({
    file: `${name}.schema.json`,
    schema: bundleJsonSchema(name as keyof typeof BUNDLE_SCHEMAS),
  }));
  const types = typeSchemas(new URL("./_output_types.ts", import.meta.url), [
    ...Object.values(OUTPUT_TYPES).map((o) => o.type),
    ...Object.values(RECORD_BODY_TYPES).map((o) => o.type),
  ]);
  const fromType = (file: string, type: string, title: string) => ({
    file,
    schema: { ...HEAD(file), title, ...types[type]! },
  });
  const fromZod = (file: string, schema: z.ZodType, title: string) => ({
    file,
    schema: {
      ...HEAD(file),
      title,
      ...withoutMeta(z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>),
    },
  });
  return [
    ...bundle,
    {
      file: "contract.schema.json",
      schema: { ...HEAD("contract.schema.json"), ...strictContractSchema(contractJsonSchema()) },
    },
    fromZod("tool-receipt.schema.json", ToolReceiptSchema, "vouch tool receipt (MAC'd)"),
    fromZod(
      "verified-patch.schema.json",
      VerifiedPatchJsonSchema,
      "vouch VerifiedPatch record (JSON form, MAC'd)",
    ),
    ...Object.entries(OUTPUT_TYPES).map(([file, o]) => fromType(file, o.type, o.title)),
    ...Object.entries(RECORD_BODY_TYPES).map(([file, o]) => fromType(file, o.type, o.title)),
    { file: "event-log-record.schema.json", schema: eventLogRecordSchema() },
    fromZod(
      "batch-output.schema.json",
      versioned(batchReportSchema.unwrap().shape),
      "vouch batch --json and vouch batch merge --json (the report, schemaVersion first)",
    ),
    fromZod(
      "worker-output.schema.json",
      versioned(keyVerdictSchema.unwrap().shape),
      "vouch worker --json: one JSON line per judged job (JSON Lines)",
    ),
    ...Object.entries(batchJsonSchemas()).map(([file, schema]) => ({
      file,
      schema: {
        ...HEAD(file),
        title: `vouch batch: ${file.replace(/\.schema\.json$/, "")}`,
        ...withoutMeta(schema),
      },
    })),
  ];
}

/**
 * A `--json` document whose result has a zod schema: `schemaVersion` (see
 * `cli/json_document.ts`) and the result's keys, nothing else.
 */
function versioned(shape: z.ZodRawShape): z.ZodType {
  return z.strictObject({
    schemaVersion: z.literal(1).describe(
      "Version of this document's schema; bumped only on a breaking change.",
    ),
    ...shape,
  });
}

const ID_BASE = "https://vouch.dev/schemas/";
const HEAD = (file: string) => ({
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: ID_BASE + file,
});

function withoutMeta(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _s, ...rest } = schema;
  return rest;
}

/** `--json` documents: file -> root type in tools/_output_types.ts. */
const OUTPUT_TYPES: Record<string, { type: string; title: string }> = {
  "verify-output.schema.json": { type: "VerifyJson", title: "vouch verify --json" },
  "run-output.schema.json": { type: "RunJson", title: "vouch run --json" },
  "scope-output.schema.json": { type: "ScopeJson", title: "vouch scope --json" },
  "inspect-output.schema.json": { type: "InspectJson", title: "vouch inspect --json" },
  "doctor-output.schema.json": { type: "DoctorJson", title: "vouch doctor --json" },
  "gc-output.schema.json": { type: "GcJson", title: "vouch gc --json" },
  "attest-verify-output.schema.json": {
    type: "AttestVerifyJson",
    title: "vouch attest verify --json",
  },
};

/** Event log record bodies: file -> [record kind, root type]. */
const RECORD_BODY_TYPES: Record<string, { kind: string; type: string; title: string }> = {
  "log-body-kernel-init.schema.json": {
    kind: "kernel.init",
    type: "KernelInitBody",
    title: "body of a kernel.init record",
  },
  "log-body-kernel-event.schema.json": {
    kind: "kernel.event",
    type: "KernelEventBody",
    title: "body of a kernel.event record (a KernelEvent)",
  },
  "log-body-kernel-actions.schema.json": {
    kind: "kernel.actions",
    type: "KernelActionsRecordBody",
    title: "body of a kernel.actions record",
  },
  "log-body-backend-transcript.schema.json": {
    kind: "backend.transcript",
    type: "TranscriptBody",
    title: "body of a backend.transcript record",
  },
  "log-body-backend-decisions.schema.json": {
    kind: "backend.decisions",
    type: "DecisionsBody",
    title: "body of a backend.decisions record (an agent's requests of vouch and the answers)",
  },
  "log-body-log-recovered.schema.json": {
    kind: "log.recovered",
    type: "LogRecoveredBody",
    title: "body of a log.recovered record",
  },
};

/**
 * One line of `.vouch/events.jsonl`: the record fields as the line verifier
 * checks them, and the body by kind (kinds vouch does not know are open).
 */
function eventLogRecordSchema(): Record<string, unknown> {
  const hex64 = { type: "string", pattern: "^[0-9a-f]{64}$" };
  const bodies: [string, string][] = [
    ...Object.entries(RECORD_BODY_TYPES).map(([file, o]) => [o.kind, file] as [string, string]),
    ["tool.receipt", "tool-receipt.schema.json"],
    ["verified_patch.minted", "verified-patch.schema.json"],
  ];
  return {
    ...HEAD("event-log-record.schema.json"),
    title: "vouch event log record (one line of .vouch/events.jsonl)",
    description: "See docs/event-log.md for the canonical form and the hash. `v` is the " +
      "record format version (the log's schema version; it is hashed, so it keeps its name).",
    type: "object",
    additionalProperties: false,
    required: ["v", "seq", "ts", "task", "kind", "body", "prev", "hash"],
    properties: {
      v: { const: 1 },
      seq: { type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
      ts: { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
      task: { type: ["string", "null"] },
      kind: { type: "string" },
      body: {},
      prev: hex64,
      hash: hex64,
    },
    allOf: bodies.map(([kind, file]) => ({
      if: { properties: { kind: { const: kind } } },
      then: { properties: { body: { $ref: file } } },
    })),
  };
}

if (import.meta.main) {
  const check = Deno.args.includes("--check");
  let stale = 0;
  for (const { file, schema } of exportedSchemas()) {
    const url = new URL(file, SCHEMAS_DIR);
    const text = JSON.stringify(schema, null, 2) + "\n";
    if (check) {
      let current: unknown = null;
      try {
        current = JSON.parse(await Deno.readTextFile(url));
      } catch {
        current = null;
      }
      if (JSON.stringify(current) !== JSON.stringify(schema)) {
        console.error(`stale: schemas/${file}`);
        stale++;
      }
    } else {
      await Deno.writeTextFile(url, text);
      console.log(`wrote schemas/${file}`);
    }
  }
  if (stale > 0) {
    console.error("Run: deno task schemas");
    Deno.exit(1);
  }
}
