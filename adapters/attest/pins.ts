/**
 * What `vouch attest verify` can pin beyond the patch: the contract that was
 * run (its digest), the base the patch was verified on, the policy the
 * statement names, and the least sandbox the checks must have run in. A pin
 * the statement contradicts, or a field it does not record, is refused (fail
 * closed): an attestation of a non-fix verified with `--verify true` does not
 * pass a verifier that pins the contract it expects.
 *
 * @module
 */
import { AttestError } from "./errors.ts";
import { type AttestationStatement, summarizeStatement } from "./predicates.ts";

/** Pins of {@linkcode checkStatementPins}; each one given must hold. */
export interface StatementPins {
  /** The contract's digest (`sha256:HEX`), as the VerifiedPatch records it. */
  readonly contractDigest?: string;
  /** The base revision (a commit id), exactly as recorded. */
  readonly base?: string;
  /** The policy: `sha256:HEX` pins its digest, anything else its URI. */
  readonly policy?: string;
  /** The least sandbox: `bwrap` refuses `bwrap+network` and `none`; `bwrap+network` refuses `none`. */
  readonly sandbox?: string;
}

/** Sandbox profiles from weakest to strongest. */
export const SANDBOX_STRENGTH: readonly string[] = ["none", "bwrap+network", "bwrap"];

const hex = (d: string) => d.toLowerCase().replace(/^sha256:/, "");

function pinFail(what: string, want: string, got: string | undefined): never {
  throw new AttestError(
    "pin_mismatch",
    got === undefined || got === ""
      ? `Cannot verify attestation: it does not record its ${what} (asked for ${want})`
      : `Cannot verify attestation: its ${what} is ${got}, not ${want}`,
  );
}

/**
 * Throws `AttestError` `pin_mismatch` unless the statement satisfies every pin.
 *
 * @example
 * ```ts
 * import { throws } from "node:assert/strict";
 * import { buildStatement } from "./predicates.ts";
 * import { checkStatementPins } from "./pins.ts";
 * const s = buildStatement({
 *   v: 1, task: "t1", baseRevision: "a".repeat(40), patchDigest: "sha256:" + "a".repeat(64),
 *   contractDigest: "sha256:" + "b".repeat(64), checks: [], receipts: [], passedAt: 0,
 *   backend: "fn", sandboxProfile: "none", logAnchor: { seq: 1, hash: "c".repeat(64) },
 *   keyId: "hmac-sha256:x", mac: "d".repeat(64),
 * }, "vouch");
 * checkStatementPins(s, { contractDigest: "sha256:" + "b".repeat(64), base: "a".repeat(40), sandbox: "none" });
 * throws(() => checkStatementPins(s, { sandbox: "bwrap" }), { code: "pin_mismatch" });
 * throws(() => checkStatementPins(s, { contractDigest: "sha256:" + "e".repeat(64) }), { code: "pin_mismatch" });
 * ```
 */
export function checkStatementPins(statement: AttestationStatement, pins: StatementPins): void {
  const s = summarizeStatement(statement);
  if (pins.contractDigest !== undefined) {
    const got = s.policyDigest === "" ? undefined : `sha256:${s.policyDigest}`;
    if (got === undefined || hex(got) !== hex(pins.contractDigest)) {
      pinFail("contract", `sha256:${hex(pins.contractDigest)}`, got);
    }
  }
  if (pins.base !== undefined) {
    const commits = statement.subject.map((d) => d.digest["gitCommit"]).filter((c) =>
      c !== undefined
    );
    const got = s.vouch.baseRevision ?? commits[0];
    if (got === undefined || got.toLowerCase() !== pins.base.toLowerCase()) {
      pinFail("base", pins.base, got);
    }
  }
  if (pins.policy !== undefined) {
    const byDigest = /^sha256:[0-9a-fA-F]{64}$/.test(pins.policy);
    const got = byDigest ? (s.policyDigest === "" ? "" : `sha256:${s.policyDigest}`) : s.policyUri;
    const same = byDigest ? hex(got) === hex(pins.policy) : got === pins.policy;
    if (!same) pinFail(byDigest ? "policy digest" : "policy URI", pins.policy, got);
  }
  if (pins.sandbox !== undefined) {
    const want = SANDBOX_STRENGTH.indexOf(pins.sandbox);
    if (want < 0) {
      throw new AttestError(
        "pin_mismatch",
        `Cannot verify attestation: unknown sandbox "${pins.sandbox}" (expected ${
          SANDBOX_STRENGTH.join(", ")
        })`,
      );
    }
    const got = SANDBOX_STRENGTH.indexOf(s.vouch.sandboxProfile);
    if (got < want) {
      throw new AttestError(
        "pin_mismatch",
        `Cannot verify attestation: its checks ran in sandbox "${s.vouch.sandboxProfile}", weaker than the ${pins.sandbox} asked for`,
      );
    }
  }
}
