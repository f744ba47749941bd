/**
 * Issue #19, honest classes on jest 29 (`npm test`, `jest`): patches a careful reviewer accepts
 * stay VERIFIED through `vouch verify --dir R --patch P --verify CMD` with no
 * other flag and no contract, judged per test from jest's own `--json`
 * report (vouch adds `--json --outputFile`). See `_honest.ts` for the classes
 * and `_runners.ts` for the fixture.
 */
import { honestSuite } from "./_honest.ts";

honestSuite("jest", ["source-only"]);
