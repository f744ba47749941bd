/**
 * Imports every pinned npm dependency once so `deno install` caches them all and
 * `deno.lock` records them. Not part of the library.
 *
 * @module
 */
import "zod";
import "hash-wasm";
import "fast-check";
import "canonicalize";
import "diff";
import "parse-diff";
import "gitdiff-parser";
import "picomatch";
import "minimatch";
