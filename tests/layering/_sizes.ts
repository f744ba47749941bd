/**
 * Measures the size rules of the house (issue 24's targets): no function
 * over {@linkcode MAX_FUNCTION_LINES} lines and no source file over
 * {@linkcode MAX_FILE_LINES} lines. Functions are found with the TypeScript
 * compiler's parser (declarations, expressions, arrows, methods, accessors,
 * constructors); a function's lines run from its first token (its JSDoc
 * aside) to its last, nested functions included. Source is every `.ts` file
 * outside `tests/`, `bench/`, `wasm/_gen/` and deno.json's `exclude`.
 *
 * Run it to list the offenders: `deno run -A tests/layering/_sizes.ts`.
 *
 * @module
 */
import ts from "typescript";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** The longest a function may be, in lines. */
export const MAX_FUNCTION_LINES = 120;
/** The longest a source file may be, in lines. */
export const MAX_FILE_LINES = 450;

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SKIP = ["tests/", "bench/", "wasm/_gen/"];

/** One function or file over its limit. */
export interface Offender {
  /** `path:name` for a function (`path:line` when it has no name), `path` for a file. */
  readonly where: string;
  /** Its length in lines. */
  readonly lines: number;
}

/** Every source file of the repository, repository-relative, sorted. */
export function sourceFiles(root: string = ROOT): string[] {
  const config = JSON.parse(Deno.readTextFileSync(join(root, "deno.json")));
  const exclude = [...SKIP, ...(config.exclude ?? []) as string[]];
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of Deno.readDirSync(dir)) {
      const path = join(dir, entry.name);
      const rel = relative(root, path) + (entry.isDirectory ? "/" : "");
      if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
      if (exclude.some((e) => rel.startsWith(e.endsWith("/") ? e : `${e}/`) || rel === e)) {
        continue;
      }
      if (entry.isDirectory) walk(path);
      else if (entry.isFile && rel.endsWith(".ts")) out.push(rel);
    }
  };
  walk(root);
  return out.sort();
}

function functionName(node: ts.Node, file: ts.SourceFile): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name !== undefined) return named.name.getText(file);
  if (ts.isConstructorDeclaration(node)) return "constructor";
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) {
    return parent.name.getText(file);
  }
  const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
  return `<anonymous@${line}>`;
}

function lineSpan(node: ts.Node, file: ts.SourceFile): number {
  const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
  const last = file.getLineAndCharacterOfPosition(node.getEnd()).line;
  return last - first + 1;
}

/** The length in lines of every function in `source`, by name, in source order. */
export function functionLengths(path: string, source: string): Offender[] {
  const file = ts.createSourceFile(path, source, ts.ScriptTarget.Latest, true);
  const out: Offender[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body !== undefined) {
      out.push({ where: `${path}:${functionName(node, file)}`, lines: lineSpan(node, file) });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

/** Every function over {@linkcode MAX_FUNCTION_LINES} and every file over {@linkcode MAX_FILE_LINES}, longest first. */
export function offenders(root: string = ROOT): { functions: Offender[]; files: Offender[] } {
  const functions: Offender[] = [];
  const files: Offender[] = [];
  for (const rel of sourceFiles(root)) {
    const source = Deno.readTextFileSync(join(root, rel));
    const lines = source.split("\n").length - (source.endsWith("\n") ? 1 : 0);
    if (lines > MAX_FILE_LINES) files.push({ where: rel, lines });
    for (const f of functionLengths(rel, source)) {
      if (f.lines > MAX_FUNCTION_LINES) functions.push(f);
    }
  }
  const longest = (a: Offender, b: Offender) => b.lines - a.lines;
  return { functions: functions.sort(longest), files: files.sort(longest) };
}

if (import.meta.main) {
  const { functions, files } = offenders();
  console.log(`functions over ${MAX_FUNCTION_LINES} lines: ${functions.length}`);
  for (const f of functions) console.log(`  ${f.lines}\t${f.where}`);
  console.log(`files over ${MAX_FILE_LINES} lines: ${files.length}`);
  for (const f of files) console.log(`  ${f.lines}\t${f.where}`);
}
