/**
 * `vouch init`: writes a starter outcome contract for the repository it runs
 * in: the detected test command (the same detection `vouch run` uses without
 * `--verify`), the runner's test files protected so an agent cannot make the
 * tests pass by editing them, and CI config protected. It never runs anything.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { isAbsolute, join, relative, resolve } from "node:path";
import process from "node:process";
import { type CliCommand, EXIT, UsageError } from "../command.ts";
import { listedCommand } from "./_listed.ts";
import { JSON_FLAG, parseFlags } from "./_flags.ts";
import { jsonDocument } from "../json_document.ts";
import {
  describeVerifyCommand,
  detectVerifyCommand,
  type VerifySource,
} from "../../adapters/verify_command/detect.ts";
import { findRepositoryRoot } from "../../adapters/keys/mod.ts";
import { ContractError, loadContract } from "../../adapters/contract/load.ts";

const HELP = `vouch init: write a starter contract for this repository

Usage:
  vouch init [--dir DIR] [--verify CMD] [--out FILE] [--force] [--json]

Detects the test command (deno.json tasks.test, package.json scripts.test,
pytest configuration, Cargo.toml, go.mod, a Makefile test target), and writes
vouch.contract.json at the top of the repository: one "tests" check running it
(with the failing-test parser that fits), the runner's test files and .github/**
protected (a patch touching them is rejected). Nothing is run. Dependencies
outside the tree, virtualenvs and editable installs: docs/recipes.md.

Options:
  --dir DIR      repository (default .)
  --verify CMD   use this command instead of the detected one
  --out FILE     where to write (default <top>/vouch.contract.json)
  --force        overwrite an existing file
  --json         print the written contract and what was detected as JSON

Examples:
  vouch init
  vouch init --verify "python3 -m pytest -q" --out ci/vouch.contract.json
`;

/** The test files of each runner's conventions, protected by the starter contract. */
const TEST_GLOBS: Readonly<Record<VerifySource, readonly string[]>> = {
  "deno.json": ["**/*_test.ts", "**/*.test.ts", "**/*_test.js", "**/*.test.js", "tests/**"],
  "package.json": [
    "test/**",
    "tests/**",
    "**/__tests__/**",
    "**/*.test.js",
    "**/*.spec.js",
    "**/*.test.ts",
    "**/*.spec.ts",
    "**/*.test.mjs",
    ".mocharc*",
  ],
  pytest: ["tests/**", "test/**", "**/test_*.py", "**/*_test.py", "**/conftest.py"],
  "Cargo.toml": ["tests/**"],
  "go.mod": ["**/*_test.go", "**/testdata/**"],
  Makefile: ["test/**", "tests/**"],
  explicit: ["test/**", "tests/**"],
};

/** `vouch init`. */
export const initCommand: CliCommand = {
  ...listedCommand("init", HELP, { 0: "written" }),
  async run(argv, io) {
    const values = parseFlags(argv, {
      dir: { type: "string", default: "." },
      verify: { type: "string" },
      out: { type: "string" },
      force: { type: "boolean", default: false },
      ...JSON_FLAG,
    });
    const top = findRepositoryRoot(resolve(values.dir));
    const detected = detectVerifyCommand(top, {
      denoExecutable: "deno",
      ...(values.verify !== undefined ? { explicit: values.verify } : {}),
    });
    if (detected === null) {
      throw new UsageError(
        `Cannot init: no test command found in ${top}; give --verify CMD (what defines done)`,
      );
    }
    const out = values.out !== undefined ? resolve(values.out) : join(top, "vouch.contract.json");
    if (existsSync(out) && !values.force) {
      throw new UsageError(`Cannot init: ${out} exists; pass --force to overwrite it`);
    }
    const protect = [...TEST_GLOBS[detected.source], ".github/**"];
    const contract = {
      description: `the repository's tests pass (${
        detected.source === "explicit" ? "--verify" : `detected from ${detected.source}`
      })`,
      checks: [{
        name: "tests",
        run: "shell" in detected.run ? detected.run.shell : [...detected.run.argv],
        ...(detected.tests !== null ? { tests: detected.tests } : {}),
        timeout: 600,
      }],
      protect,
    };
    await writeFile(out, JSON.stringify(contract, null, 2) + "\n");
    // What was written must load: the same parser `--contract` uses.
    try {
      await loadContract(out);
    } catch (error) {
      if (error instanceof ContractError) throw new UsageError(error.message);
      throw error;
    }
    const shown = relative(process.cwd(), out);
    const name = shown === "" || shown.startsWith("..") || isAbsolute(shown) ? out : shown;
    if (values.json) {
      io.out(
        JSON.stringify(jsonDocument({
          path: out,
          source: detected.source,
          tests: detected.tests,
          contract,
        })) + "\n",
      );
    } else {
      io.out(
        [
          // The whole path: under `deno task` the working directory is vouch's checkout.
          `wrote ${out}`,
          `  ${describeVerifyCommand(detected)}`,
          `  protected: ${protect.join(", ")}`,
          `next: vouch verify --patch fix.patch --contract ${name}`,
          `      vouch run --contract ${name} --goal "..."`,
          "dependencies outside the tree, virtualenvs, editable installs: docs/recipes.md",
        ].join("\n") + "\n",
      );
    }
    return EXIT.ok;
  },
};
