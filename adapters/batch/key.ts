/**
 * The names a batch keys its work by: a candidate's resume key (task
 * definition, resolved base, patch digest) and a task's shared-artefact
 * directory.
 *
 * @module
 */
import { sha256Hex } from "../digest/sha256.ts";
import type { BatchTask } from "./input.ts";

/**
 * The resume key of a candidate (64 hex digits): task definition, resolved
 * base and patch digest.
 *
 * @example
 * ```ts
 * import { equal, notEqual } from "node:assert/strict";
 * import { candidateKey } from "./key.ts";
 * equal(candidateKey("sha256:t", "b", "p"), candidateKey("sha256:t", "b", "p"));
 * notEqual(candidateKey("sha256:t", "b", "p"), candidateKey("sha256:t", "c", "p"));
 * ```
 */
export function candidateKey(taskDigest: string, base: string, patchDigest: string): string {
  return sha256Hex(JSON.stringify([taskDigest, base, patchDigest])).slice(7);
}

/**
 * The directory name (16 hex digits) of a task's shared artefacts (`tasks/<name>/`).
 *
 * @example
 * ```ts
 * import { equal, notEqual } from "node:assert/strict";
 * import { taskDirName } from "./key.ts";
 * equal(taskDirName({ digest: "sha256:t" }, "b").length, 16);
 * notEqual(taskDirName({ digest: "sha256:t" }, "b"), taskDirName({ digest: "sha256:t" }, "c"));
 * ```
 */
export function taskDirName(task: Pick<BatchTask, "digest">, base: string): string {
  return sha256Hex(`${task.digest}\0${base}`).slice(7, 23);
}
