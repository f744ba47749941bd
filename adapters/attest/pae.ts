const encoder = new TextEncoder();

/**
 * DSSE pre-authentication encoding:
 * `"DSSEv1" SP LEN(type) SP type SP LEN(body) SP body`, lengths as ASCII
 * decimal byte counts. The signature covers these bytes, never the JSON
 * envelope, so nothing in the envelope can be reinterpreted.
 *
 * @example
 * ```ts
 * import { pae } from "./pae.ts";
 * const out = new TextDecoder().decode(pae("http://example.com/HelloWorld", new TextEncoder().encode("hello world")));
 * if (out !== "DSSEv1 29 http://example.com/HelloWorld 11 hello world") throw new Error(out);
 * ```
 */
export function pae(payloadType: string, payload: Uint8Array): Uint8Array<ArrayBuffer> {
  const type = encoder.encode(payloadType);
  const head = encoder.encode(`DSSEv1 ${type.length} `);
  const mid = encoder.encode(` ${payload.length} `);
  const out = new Uint8Array(head.length + type.length + mid.length + payload.length);
  out.set(head, 0);
  out.set(type, head.length);
  out.set(mid, head.length + type.length);
  out.set(payload, head.length + type.length + mid.length);
  return out;
}
