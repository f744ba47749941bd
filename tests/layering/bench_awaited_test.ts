/**
 * `Deno.bench` awaits a bench function only when it is an `async` function
 * (its `constructor` is `AsyncFunction`): a plain arrow that returns a promise,
 * `fn: () => check()`, is timed as synchronous, its promise is not awaited and
 * the runs overlap (96b638b: 133 bare bwraps at once, the table read 9.4 ms
 * for 68 ms). This test reads every `bench/*.ts` with the TypeScript parser and
 * fails when a `Deno.bench` function is not `async` yet returns (or drops) the
 * promise of a call to a function of the same file that is `async` or declared
 * to return a `Promise`, or is such a non-async promise-returning function
 * passed by name (`fn: verify`).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const BENCH = fileURLToPath(new URL("../../bench", import.meta.url));

type FnLike =
  | ts.ArrowFunction
  | ts.FunctionExpression
  | ts.FunctionDeclaration
  | ts.MethodDeclaration;

const isFnLike = (n: ts.Node): n is FnLike =>
  ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isFunctionDeclaration(n) ||
  ts.isMethodDeclaration(n);

const isAsync = (f: FnLike): boolean =>
  (ts.getModifiers(f) ?? []).some((m) => m.kind === ts.SyntaxKind.AsyncKeyword);

const returnsPromiseType = (f: FnLike, file: ts.SourceFile): boolean =>
  f.type !== undefined && /^Promise\s*</.test(f.type.getText(file));

/** Named functions of a file (declarations and `const x = () => ...`), by name. */
function namedFunctions(file: ts.SourceFile): Map<string, FnLike> {
  const out = new Map<string, FnLike>();
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionDeclaration(n) && n.name !== undefined) out.set(n.name.text, n);
    if (
      ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.initializer !== undefined &&
      (ts.isArrowFunction(n.initializer) || ts.isFunctionExpression(n.initializer))
    ) out.set(n.name.text, n.initializer);
    ts.forEachChild(n, visit);
  };
  visit(file);
  return out;
}

function unwrap(e: ts.Expression): ts.Expression {
  while (
    ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e) ||
    ts.isNonNullExpression(e) || ts.isVoidExpression(e)
  ) e = e.expression;
  return e;
}

/** The name of the same-file promise-returning function `e` calls, if it is such a call. */
function promiseCall(
  e: ts.Expression,
  fns: Map<string, FnLike>,
  file: ts.SourceFile,
  seen: Set<FnLike> = new Set(),
): string | null {
  const u = unwrap(e);
  if (ts.isNewExpression(u) && u.expression.getText(file) === "Promise") return "new Promise";
  if (!ts.isCallExpression(u)) return null;
  const callee = unwrap(u.expression);
  if (
    ts.isPropertyAccessExpression(callee) && ["then", "catch", "finally"].includes(callee.name.text)
  ) {
    return `.${callee.name.text}()`;
  }
  if (!ts.isIdentifier(callee)) return null;
  const f = fns.get(callee.text);
  return f !== undefined && returnsPromise(f, fns, file, seen) ? callee.text : null;
}

/**
 * Whether `f` returns a promise: it is async, declared to return a `Promise`, or an
 * arrow whose expression body is such a call (`const check = () => checkIn(p)`).
 */
function returnsPromise(
  f: FnLike,
  fns: Map<string, FnLike>,
  file: ts.SourceFile,
  seen: Set<FnLike>,
): boolean {
  if (isAsync(f) || returnsPromiseType(f, file)) return true;
  if (seen.has(f) || f.body === undefined || ts.isBlock(f.body)) return false;
  seen.add(f);
  return promiseCall(f.body, fns, file, seen) !== null;
}

/** Why a bench function `f` is not awaited by Deno.bench, or null when it is fine. */
function notAwaited(
  f: ts.Expression | FnLike,
  fns: Map<string, FnLike>,
  file: ts.SourceFile,
): string | null {
  if (ts.isIdentifier(f)) {
    const target = fns.get(f.text);
    if (target === undefined || isAsync(target)) return null;
    return returnsPromise(target, fns, file, new Set())
      ? `\`${f.text}\` returns a promise but is not async`
      : null;
  }
  if (!isFnLike(f) || isAsync(f)) return null;
  if (returnsPromiseType(f, file)) return "declared to return a Promise but not async";
  if (f.body === undefined) return null;
  if (!ts.isBlock(f.body)) {
    const called = promiseCall(f.body, fns, file);
    return called === null ? null : `a plain arrow returning ${called}`;
  }
  // A block body: its own statements (not those of nested functions) that return
  // or drop a promise.
  let found: string | null = null;
  const visit = (n: ts.Node): void => {
    if (found !== null || isFnLike(n) || ts.isClassLike(n)) return;
    const e = ts.isReturnStatement(n) || ts.isExpressionStatement(n) ? n.expression : undefined;
    const called = e === undefined ? null : promiseCall(e, fns, file);
    if (called !== null) found = `not async, its body leaves ${called} unawaited`;
    else ts.forEachChild(n, visit);
  };
  ts.forEachChild(f.body, visit);
  return found;
}

/** Every `Deno.bench` function of `source` that Deno.bench would not await, as `line: why`. */
export function unawaitedBenches(source: string, name = "bench.ts"): string[] {
  const file = ts.createSourceFile(name, source, ts.ScriptTarget.Latest, true);
  const fns = namedFunctions(file);
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n) && n.expression.getText(file) === "Deno.bench") {
      const candidates: (ts.Expression | FnLike)[] = [];
      for (const arg of n.arguments) {
        if (ts.isObjectLiteralExpression(arg)) {
          for (const p of arg.properties) {
            if (ts.isPropertyAssignment(p) && p.name.getText(file) === "fn") {
              candidates.push(p.initializer);
            }
            if (ts.isMethodDeclaration(p) && p.name.getText(file) === "fn") candidates.push(p);
          }
        } else if (!ts.isStringLiteralLike(arg) && !ts.isTemplateExpression(arg)) {
          candidates.push(arg);
        }
      }
      for (const c of candidates) {
        const why = notAwaited(ts.isFunctionLike(c) ? c : unwrap(c), fns, file);
        const line = file.getLineAndCharacterOfPosition(c.getStart(file)).line + 1;
        if (why !== null) out.push(`${name}:${line}: ${why}`);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(file);
  return out;
}

Deno.test("the detector flags a plain arrow or function returning a same-file promise", () => {
  const bad = `
async function check(): Promise<void> {}
function verify(s: string): Promise<void> { return check(); }
const later = () => check();
Deno.bench({ name: "a", fn: () => check() });
Deno.bench({ name: "b", fn: () => verify("x") });
Deno.bench({ name: "c", fn: verify });
Deno.bench("d", () => check());
Deno.bench({ name: "e" }, () => { return check(); });
Deno.bench({ name: "f", fn() { check(); } });
Deno.bench({ name: "g", fn: (() => check()) as () => void });
Deno.bench({ name: "h", fn: later });
Deno.bench({ name: "i", fn: () => new Promise((r) => setTimeout(r, 1)) });
Deno.bench({ name: "j", fn: () => later() });
`;
  assert.deepEqual(unawaitedBenches(bad).map((s) => s.split(":")[1]), [
    "5",
    "6",
    "7",
    "8",
    "9",
    "10",
    "11",
    "12",
    "13",
    "14",
  ]);
});

Deno.test("the detector passes async functions, sync work and promises awaited", () => {
  const good = `
async function check(): Promise<void> {}
function parse(s: string): number { return s.length; }
async function bare() {}
Deno.bench({ name: "a", fn: async () => await check() });
Deno.bench({ name: "b", fn: bare });
Deno.bench({ name: "c", async fn() { await check(); } });
Deno.bench("d", () => { parse("x"); });
Deno.bench({ name: "e" }, async () => { await check(); });
Deno.bench({ name: "f", fn: () => parse("x") });
Deno.bench({ name: "g", fn: () => { const f = () => check(); void f; } });
`;
  assert.deepEqual(unawaitedBenches(good), []);
});

Deno.test("every bench/*.ts bench function that returns a promise is async", () => {
  const found: string[] = [];
  let benches = 0;
  for (const entry of Deno.readDirSync(BENCH)) {
    if (!entry.isFile || !entry.name.endsWith(".ts")) continue;
    const text = Deno.readTextFileSync(join(BENCH, entry.name));
    benches += text.split("Deno.bench(").length - 1;
    found.push(...unawaitedBenches(text, `bench/${entry.name}`));
  }
  assert.ok(benches > 20, `only ${benches} Deno.bench calls found in bench/`);
  assert.deepEqual(found.sort(), []);
});
