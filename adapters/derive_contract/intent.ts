/**
 * Whether an intent asks to make failing tests pass ("fix the failing
 * tests", "make the tests pass", "tests are red"). Such tasks are routed
 * through observing the real failures first, and their contracts must fail
 * on the unmodified tree (`baseline gates nothing` is refused).
 *
 * @example
 * ```ts
 * import { intentTargetsTests } from "./intent.ts";
 * if (!intentTargetsTests("Make the failing tests pass")) throw new Error();
 * if (!intentTargetsTests("fix broken unit tests in src/")) throw new Error();
 * if (intentTargetsTests("Add a --verbose flag and document it")) throw new Error();
 * ```
 */
export function intentTargetsTests(intent: string): boolean {
  const t = intent.toLowerCase().replace(/\s+/g, " ");
  const patterns = [
    /\b(make|get|turn)\b.{0,40}\btests?\b.{0,20}\b(pass|passing|green|succeed)/,
    /\bfix\b.{0,30}\b(failing|broken|red|flaky)\b.{0,20}\b(tests?|specs?|suite)\b/,
    /\b(failing|broken|red)\b.{0,10}\b(tests?|specs?|test suite)\b/,
    /\btests?\b.{0,20}\b(are|is)\b.{0,10}\b(failing|broken|red)\b/,
    /\bci\b.{0,20}\b(failing|red|broken)\b/,
  ];
  return patterns.some((p) => p.test(t));
}
