/**
 * A constant object computed when first read: a JSON Schema export
 * (`z.toJSONSchema` costs milliseconds) stays a plain exported value without
 * costing every program that imports its module.
 *
 * @module
 */

/**
 * An object that looks like `build()`'s result (keys, values, prototype,
 * `JSON.stringify`, deep equality) and calls `build` once, on first read.
 *
 * @example
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
 * import { lazyRecord } from "./_lazy_record.ts";
 * let calls = 0;
 * const schema = lazyRecord(() => (calls++, { type: "object", required: ["a"] }));
 * equal(calls, 0);
 * equal(schema["type"], "object");
 * deepEqual(schema, { type: "object", required: ["a"] });
 * equal(JSON.stringify(schema), '{"type":"object","required":["a"]}');
 * equal(calls, 1);
 * ```
 */
export function lazyRecord(build: () => Record<string, unknown>): Record<string, unknown> {
  let value: Record<string, unknown> | undefined;
  const real = () => value ??= build();
  return new Proxy({}, {
    get: (_, key) => Reflect.get(real(), key),
    has: (_, key) => Reflect.has(real(), key),
    ownKeys: () => Reflect.ownKeys(real()),
    getOwnPropertyDescriptor: (_, key) => {
      const d = Reflect.getOwnPropertyDescriptor(real(), key);
      // The proxy's empty target must be able to report the property (configurable).
      return d === undefined ? undefined : { ...d, configurable: true };
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
    set: () => false,
    defineProperty: () => false,
    deleteProperty: () => false,
  });
}
