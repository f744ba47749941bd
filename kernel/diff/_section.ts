/**
 * One file section of a diff as the parser collects it ({@link Section}),
 * and how a finished section is validated into a {@link DiffFile}: which
 * names and status it has, whether its headers agree with each other, and
 * whether its hunks fit that status.
 *
 * @module
 */
import { DiffParseError } from "./error.ts";
import { bytesEqual, headerMatchesNames } from "./names.ts";
import type {
  BinaryKind,
  BinaryPatch,
  DiffFile,
  DiffHeaderKind,
  DiffHunk,
  DiffStatus,
} from "./types.ts";
import { decodeUtf8 } from "../text/utf8.ts";

/** A file section while the parser fills it in, header line by header line. */
export interface Section {
  headerKind: DiffHeaderKind;
  line: number;
  gitOld: Uint8Array | null;
  gitNew: Uint8Array | null;
  headerStart: number;
  headerEnd: number;
  headerAmbiguous: boolean;
  minus: Uint8Array | null;
  minusEpoch: boolean;
  plusEpoch: boolean;
  plus: Uint8Array | null;
  hasMarkers: boolean;
  oldMode: string | null;
  newMode: string | null;
  newFileMode: string | null;
  deletedFileMode: string | null;
  renameFrom: Uint8Array | null;
  renameTo: Uint8Array | null;
  copyFrom: Uint8Array | null;
  copyTo: Uint8Array | null;
  similarity: number | null;
  dissimilarity: number | null;
  oldHash: string | null;
  newHash: string | null;
  indexMode: string | null;
  binaryKind: BinaryKind | null;
  binaryPatch: BinaryPatch | null;
  hunks: DiffHunk[];
  additions: number;
  deletions: number;
}

/** An empty section of header kind `kind`, starting at 1-based `line`. */
export function newSection(kind: DiffHeaderKind, line: number): Section {
  return {
    headerKind: kind,
    line,
    gitOld: null,
    gitNew: null,
    headerStart: 0,
    headerEnd: 0,
    headerAmbiguous: false,
    minus: null,
    minusEpoch: false,
    plusEpoch: false,
    plus: null,
    hasMarkers: false,
    oldMode: null,
    newMode: null,
    newFileMode: null,
    deletedFileMode: null,
    renameFrom: null,
    renameTo: null,
    copyFrom: null,
    copyTo: null,
    similarity: null,
    dissimilarity: null,
    oldHash: null,
    newHash: null,
    indexMode: null,
    binaryKind: null,
    binaryPatch: null,
    hunks: [],
    additions: 0,
    deletions: 0,
  };
}

/** What a section changes: its status, its names (raw bytes) and its modes. */
interface Identity {
  readonly status: DiffStatus;
  readonly oldName: Uint8Array | null;
  readonly newName: Uint8Array | null;
  readonly oldMode: string | null;
  readonly newMode: string | null;
}

type Fail = (code: DiffParseError["code"], detail: string) => never;

/**
 * Validates a finished section and returns it as a {@link DiffFile}; throws
 * {@link DiffParseError} (at the section's first line) when its headers
 * disagree or its hunks do not fit its status. `bytes` is the whole diff
 * (an ambiguous `diff --git` line is re-read from it).
 */
export function finishSection(section: Section, bytes: Uint8Array): DiffFile {
  const fail: Fail = (code, detail) => {
    throw new DiffParseError(code, section.line, detail);
  };
  const identity = section.headerKind === "unified"
    ? traditionalIdentity(section)
    : gitIdentity(section, bytes, fail);
  checkHunksFitStatus(section, identity.status, fail);
  return toDiffFile(section, identity);
}

/** A traditional (`---`/`+++` only) patch names one file (git's apply.c parse_traditional_patch). */
function traditionalIdentity(f: Section): Identity {
  const modes = { oldMode: f.oldMode, newMode: f.newMode };
  if (f.minus === null) return { status: "added", oldName: null, newName: f.plus, ...modes };
  if (f.plus === null) return { status: "deleted", oldName: f.minus, newName: null, ...modes };
  const chosen = f.minus.length < f.plus.length && startsWithBytes(f.plus, f.minus)
    ? f.minus
    : f.plus;
  // GNU diff -N marks a missing side with an epoch timestamp.
  if (f.minusEpoch) return { status: "added", oldName: null, newName: chosen, ...modes };
  if (f.plusEpoch) return { status: "deleted", oldName: chosen, newName: null, ...modes };
  return { status: "modified", oldName: chosen, newName: chosen, ...modes };
}

/** A `diff --git` section: its extended headers, checked against each other and the names. */
function gitIdentity(f: Section, bytes: Uint8Array, fail: Fail): Identity {
  checkExtendedHeaders(f, fail);
  const named = renameOrCopyIdentity(f, bytes, fail) ?? sameNameIdentity(f, bytes, fail);
  if (f.hasMarkers) {
    const expectOld = named.status === "added" ? null : named.oldName;
    const expectNew = named.status === "deleted" ? null : named.newName;
    if (!bytesEqual(f.minus, expectOld) || !bytesEqual(f.plus, expectNew)) {
      fail("name_mismatch", "---/+++ names disagree with the diff --git header");
    }
  }
  const identity = withIndexMode(f, named, fail);
  const changesNothing = f.hunks.length === 0 && f.binaryKind === null;
  if (changesNothing && identity.status === "modified" && f.oldHash === null) {
    fail("missing_header", "file section without any change");
  }
  return identity;
}

/** Extended headers that cannot appear together, or must come in pairs. */
function checkExtendedHeaders(f: Section, fail: Fail): void {
  const renamed = f.renameFrom !== null || f.renameTo !== null;
  const copied = f.copyFrom !== null || f.copyTo !== null;
  const createsOrDeletes = f.newFileMode !== null || f.deletedFileMode !== null;
  if (renamed && copied) fail("bad_extended_header", "both rename and copy headers");
  if ((f.renameFrom === null) !== (f.renameTo === null)) {
    fail("bad_extended_header", "rename from/to must come in pairs");
  }
  if ((f.copyFrom === null) !== (f.copyTo === null)) {
    fail("bad_extended_header", "copy from/to must come in pairs");
  }
  if (f.newFileMode !== null && f.deletedFileMode !== null) {
    fail("status_mismatch", "both new and deleted file mode");
  }
  if (createsOrDeletes && (renamed || copied)) {
    fail("status_mismatch", "new/deleted file combined with rename or copy");
  }
  if (createsOrDeletes && (f.oldMode || f.newMode)) {
    fail("status_mismatch", "new/deleted file combined with old/new mode");
  }
  if ((f.oldMode === null) !== (f.newMode === null)) {
    fail("bad_extended_header", "old mode and new mode must come in pairs");
  }
  if (f.similarity !== null && !(renamed || copied)) {
    fail("bad_extended_header", "similarity index without rename or copy");
  }
}

/** A rename or copy, named by its from/to lines (which the `diff --git` names must match); else null. */
function renameOrCopyIdentity(f: Section, bytes: Uint8Array, fail: Fail): Identity | null {
  const from = f.renameFrom ?? f.copyFrom;
  const to = f.renameTo ?? f.copyTo;
  if (from === null || to === null) return null;
  const agrees = f.headerAmbiguous
    ? headerMatchesNames(bytes, f.headerStart, f.headerEnd, from, to)
    : bytesEqual(f.gitOld, from) && bytesEqual(f.gitNew, to);
  if (!agrees) fail("name_mismatch", "diff --git line disagrees with rename/copy lines");
  const status = f.renameFrom !== null ? "renamed" : "copied";
  return { status, oldName: from, newName: to, oldMode: f.oldMode, newMode: f.newMode };
}

/** One name on both sides: added, deleted, mode-only or modified, by the mode headers. */
function sameNameIdentity(f: Section, bytes: Uint8Array, fail: Fail): Identity {
  let name = f.gitOld;
  if (f.headerAmbiguous) {
    name = f.minus ?? f.plus;
    if (name === null) fail("missing_name", "git diff header lacks filename information");
    if (!headerMatchesNames(bytes, f.headerStart, f.headerEnd, name, name)) {
      fail("name_mismatch", "diff --git names disagree with ---/+++");
    }
  } else if (!bytesEqual(f.gitOld, f.gitNew)) {
    fail("name_mismatch", "diff --git names differ without rename or copy");
  }
  const same = { oldName: name, newName: name, oldMode: f.oldMode, newMode: f.newMode };
  if (f.newFileMode !== null) {
    return { ...same, status: "added", oldName: null, newMode: f.newFileMode };
  }
  if (f.deletedFileMode !== null) {
    return { ...same, status: "deleted", newName: null, oldMode: f.deletedFileMode };
  }
  if (f.oldMode !== null && f.hunks.length === 0 && f.binaryKind === null) {
    return { ...same, status: "mode-only" };
  }
  return { ...same, status: "modified" };
}

/** A mode change must change the mode; an `index` line's mode is both sides' mode. */
function withIndexMode(f: Section, identity: Identity, fail: Fail): Identity {
  const { oldMode, newMode } = identity;
  if (oldMode !== null && newMode !== null && oldMode === newMode && f.oldMode !== null) {
    fail("bad_extended_header", "old mode equals new mode");
  }
  if (f.indexMode === null) return identity;
  if (f.oldMode !== null || f.newFileMode !== null || f.deletedFileMode !== null) {
    fail("bad_extended_header", "index line carries a mode next to a mode header");
  }
  return { ...identity, oldMode: f.indexMode, newMode: f.indexMode };
}

/** A new file has no old lines; a deleted one keeps no new lines. */
function checkHunksFitStatus(f: Section, status: DiffStatus, fail: Fail): void {
  if (status === "added" && f.hunks.some((h) => h.oldLines !== 0)) {
    fail("status_mismatch", "new file depends on old contents");
  }
  if (status === "deleted" && f.hunks.some((h) => h.newLines !== 0)) {
    fail("status_mismatch", "deleted file still has contents");
  }
}

function toDiffFile(f: Section, identity: Identity): DiffFile {
  const { status, oldName, newName, oldMode, newMode } = identity;
  const oldPath = oldName === null ? null : decodeUtf8(oldName);
  const newPath = newName === null
    ? null
    : bytesEqual(oldName, newName)
    ? oldPath
    : decodeUtf8(newName);
  return {
    oldPath,
    newPath,
    oldPathBytes: oldName,
    newPathBytes: newName,
    status,
    oldMode: status === "added" ? null : oldMode,
    newMode: status === "deleted" ? null : newMode,
    similarity: f.similarity,
    dissimilarity: f.dissimilarity,
    oldHash: f.oldHash,
    newHash: f.newHash,
    binary: f.binaryKind !== null,
    binaryKind: f.binaryKind,
    binaryPatch: f.binaryPatch,
    isSymlink: oldMode === "120000" || newMode === "120000",
    isGitlink: oldMode === "160000" || newMode === "160000",
    additions: f.additions,
    deletions: f.deletions,
    hunks: f.hunks,
    headerKind: f.headerKind,
    line: f.line,
  };
}

function startsWithBytes(whole: Uint8Array, prefix: Uint8Array): boolean {
  if (prefix.length > whole.length) return false;
  for (let i = 0; i < prefix.length; i++) if (whole[i] !== prefix[i]) return false;
  return true;
}
