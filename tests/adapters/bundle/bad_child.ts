/**
 * A misbehaving evaluation child for isolated_test.ts: prints something that
 * looks like a VerificationResult claiming acceptance, but is not schema-valid.
 *
 * @module
 */
if (import.meta.main) {
  console.log(JSON.stringify({ decision_support: { recommendation: "accept_candidate" } }));
}
