/**
 * The installed `vouch` (deno task install / compile) runs with exactly the
 * `deno task vouch` permissions and never stops at a Deno permission prompt:
 * `--no-prompt` everywhere, and the one `sys` call vouch makes (the log
 * lock's `Deno.hostname()`, to tell a stale lock from another machine's) is
 * allowed explicitly.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { COMPILE_FLAGS } from "../../tools/compile.ts";

const config = JSON.parse(
  Deno.readTextFileSync(fileURLToPath(new URL("../../deno.json", import.meta.url))),
);
const tasks = config.tasks as Record<string, string>;
const flags = (task: string) =>
  tasks[task]!.split(/\s+/).filter((w) =>
    w.startsWith("--") && !w.startsWith("--config") &&
    !["--global", "--force", "--name", "--output"].includes(w)
  );

Deno.test("install and compile never prompt and grant what the vouch task grants", () => {
  for (const task of ["vouch", "install"]) {
    assert.ok(flags(task).includes("--no-prompt"), `${task}: --no-prompt`);
    assert.ok(flags(task).includes("--allow-sys=hostname"), `${task}: --allow-sys=hostname`);
  }
  assert.deepEqual(flags("install").sort(), flags("vouch").sort());
  // `deno task compile` runs tools/compile.ts, which compiles with COMPILE_FLAGS.
  assert.match(tasks["compile"]!, /tools\/compile\.ts$/);
  assert.deepEqual([...COMPILE_FLAGS].sort(), flags("vouch").sort());
});

Deno.test("with the vouch task's flags, Deno.hostname() answers; without --allow-sys it would not", async () => {
  const words = tasks["vouch"]!.split(/\s+/);
  const perms = words.slice(words.indexOf("run") + 1, words.indexOf("cli/main.ts"));
  const dir = await Deno.makeTempDir({ prefix: "vouch-flags-" });
  try {
    await Deno.writeTextFile(`${dir}/h.ts`, "console.log(Deno.hostname());\n");
    const run = (args: string[]) =>
      new Deno.Command(Deno.execPath(), {
        args: ["run", ...args, `${dir}/h.ts`],
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
    const ok = await run(perms);
    assert.equal(ok.code, 0, new TextDecoder().decode(ok.stderr));
    assert.ok(new TextDecoder().decode(ok.stdout).trim().length > 0);
    const denied = await run(perms.filter((p) => !p.startsWith("--allow-sys")));
    assert.notEqual(denied.code, 0, "without --allow-sys the call is refused (a prompt on a TTY)");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
