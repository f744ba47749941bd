/**
 * Issue #19, honest class on vitest 3 through `vouch run`: a scripted
 * `command:` agent that fixes only the source is VERIFIED with
 * `vouch run --backend command:AGENT --goal G --verify "npm test"` and no
 * other flag (its own file: vitest is the slowest runner to start).
 */
import { honestRunSuite } from "./_honest.ts";

honestRunSuite("vitest", ["source-only"]);
