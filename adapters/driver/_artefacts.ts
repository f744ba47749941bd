/**
 * Artefact writing, apart from the loop: every file the driver leaves under
 * `.vouch/runs/<task>/` (baseline and round evidence, patches, the verified
 * patch and its attestation, the outcome).
 *
 * @module
 */
import { mkdir, writeFile } from "node:fs/promises";
import { attestVerifiedPatch } from "../attest/attest.ts";
import type { VerifiedPatch } from "../verified_patch/verified_patch.ts";
import type { RunOutcome } from "./outcome.ts";
import type { TaskRun } from "./_task_run.ts";

const encoder = new TextEncoder();

/** Writes `value` as pretty JSON at `<artefactsDir>/<rel>` (directories created). */
export async function writeJson(run: TaskRun, rel: string, value: unknown): Promise<void> {
  const path = `${run.o.artefactsDir}/${rel}`;
  await mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  await writeFile(path, encoder.encode(JSON.stringify(value, null, 2) + "\n"));
}

/** Writes `text` at `<artefactsDir>/<rel>` (directories created): a round's `test_output.txt`. */
export async function writeText(run: TaskRun, rel: string, text: string): Promise<void> {
  const path = `${run.o.artefactsDir}/${rel}`;
  await mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  await writeFile(path, encoder.encode(text));
}

/** Writes a round's extracted diff. */
export async function writeRoundPatch(
  run: TaskRun,
  round: number,
  bytes: Uint8Array,
): Promise<void> {
  const dir = `${run.o.artefactsDir}/round-${round}`;
  await mkdir(dir, { recursive: true });
  await writeFile(`${dir}/patch.diff`, bytes);
}

/** Writes the verified patch, its record and (with a signing key) its DSSE attestation. */
export async function writeVerified(
  run: TaskRun,
  patch: Uint8Array,
  verified: VerifiedPatch,
): Promise<string> {
  const o = run.o;
  const patchFile = `${o.artefactsDir}/patch.diff`;
  await writeFile(patchFile, patch);
  await writeJson(run, "verified_patch.json", verified.toJSON());
  if (o.signingKey !== undefined) {
    const envelope = await attestVerifiedPatch(verified, o.key, o.signingKey);
    await writeJson(run, "attestation.json", envelope);
    await writeFile(`${o.artefactsDir}/attestation.pub.pem`, o.signingKey.publicKeyPem);
  }
  return patchFile;
}

/** Writes the run's outcome (also logged as `run.outcome`). */
export async function writeOutcome(run: TaskRun, outcome: RunOutcome): Promise<void> {
  await writeJson(run, "outcome.json", outcome);
}
