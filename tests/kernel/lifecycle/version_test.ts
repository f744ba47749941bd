import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { KERNEL_LIFECYCLE_VERSION, TRANSITIONS } from "../../../kernel/lifecycle/mod.ts";

// The transition table this version was released with. Changing the table
// changes which actions the same events produce, so recorded logs would no
// longer replay: bump KERNEL_LIFECYCLE_VERSION and re-pin this fingerprint.
const PINNED: Readonly<Record<string, string>> = {
  "vouch.lifecycle/2": "df8c88e6faf0623e0ba6e734518e1c374076d099a009030e743b8ac613497cf2",
};

Deno.test("the transition table cannot change without a new KERNEL_LIFECYCLE_VERSION", () => {
  const fingerprint = createHash("sha256").update(JSON.stringify(TRANSITIONS)).digest("hex");
  assert.equal(
    fingerprint,
    PINNED[KERNEL_LIFECYCLE_VERSION],
    `TRANSITIONS changed under ${KERNEL_LIFECYCLE_VERSION}: bump the version and pin ${fingerprint}`,
  );
});
