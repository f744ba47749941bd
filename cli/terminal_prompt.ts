/**
 * One yes/no question on the terminal (stderr for the question, stdin for the
 * answer): integration approvals and agent permissions the policy sends to a
 * human. Presentation only; what is asked and what the answer means is
 * decided elsewhere.
 *
 * @module
 */
import { writeSync } from "node:fs";
import process from "node:process";

/**
 * True when the user types `yes` or `y` after `question`; anything else, or
 * the end of stdin, is no.
 *
 * @example
 * ```ts ignore
 * const ok = await askYes("Integrate it?\nType yes to approve: ");
 * ```
 */
export async function askYes(question: string): Promise<boolean> {
  writeSync(2, new TextEncoder().encode(question));
  const line = await new Promise<string>((resolve) => {
    process.stdin.once("data", (chunk) => resolve(String(chunk)));
    process.stdin.once("end", () => resolve(""));
  });
  process.stdin.pause();
  const answer = line.slice(0, 64).trim().toLowerCase();
  return answer === "yes" || answer === "y";
}
