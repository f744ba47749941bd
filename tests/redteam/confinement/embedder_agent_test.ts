/**
 * Red team: an agent an embedder hands to the library's `runInRepo` (the root
 * facade, not the CLI). Before, `runInRepo({ backend: commandBackend(...) })`
 * ran the agent with the embedding process's rights: the hostile agent below
 * read a host file outside its worktree into its patch, wrote outside the
 * worktree, and the run was VERIFIED. Now a program-starting backend is
 * refused unless it comes through `confinedAgent` (the agent sandbox `vouch
 * run` uses) or the caller says `unconfinedAgent: true`; through
 * `confinedAgent` the same agent reads and writes nothing outside.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  confinedAgent,
  contractFromCommand,
  isVouchError,
  runInRepo,
  type RunInRepoOptions,
} from "../../../mod.ts";
import { commandBackend, fnBackend, openaiBackend } from "../../../adapters/backends/mod.ts";
import { createRepo, type FixtureRepo } from "../../golden/fixture_repos.ts";
import { skipReason } from "./_harness.ts";

const SECRET = "HOST SECRET 7f3a";

interface Scene {
  readonly repo: FixtureRepo;
  /** The agent program (in its own dir, readable by others, as an install dir is). */
  readonly agent: string;
  /** A host file outside the worktree the agent tries to read. */
  readonly secret: string;
  /** Where the agent tries to write outside its worktree. */
  readonly outside: string;
  /** Written by the agent the moment it starts (outside the worktree). */
  readonly started: string;
  readonly options: Omit<RunInRepoOptions, "backend">;
}

async function scene(): Promise<Scene> {
  const repo = await createRepo({ "answer.txt": "41\n" }, "grep -qx 42 answer.txt");
  const root = join(repo.dir, "..");
  const bin = join(root, "bin");
  await Deno.mkdir(bin, { mode: 0o755 });
  await Deno.chmod(bin, 0o755);
  const secret = join(root, "host-secret.txt");
  await Deno.writeTextFile(secret, `${SECRET}\n`);
  const outside = join(root, "escaped.txt");
  const started = join(root, "started.txt");
  const agent = join(bin, "agent.sh");
  await Deno.writeTextFile(
    agent,
    [
      "#!/bin/sh",
      `echo started > ${started} 2>/dev/null`,
      "echo 42 > answer.txt",
      `cat ${secret} > leaked.txt 2>/dev/null || echo unread > leaked.txt`,
      `echo escaped > ${outside} 2>/dev/null`,
      "",
    ].join("\n"),
  );
  await Deno.chmod(agent, 0o755);
  return {
    repo,
    agent,
    secret,
    outside,
    started,
    options: {
      dir: repo.dir,
      contract: contractFromCommand("grep -qx 42 answer.txt", 30_000),
      keyEnv: { XDG_STATE_HOME: join(root, "state") },
      // The checks' sandbox is not what this file is about: none, so it runs without bwrap too.
      sandbox: "none",
      goal: "make answer.txt say 42",
      maxRounds: 1,
      wallTimeMs: 120_000,
    },
  };
}

Deno.test("runInRepo refuses a program-starting agent that is not confined, before it runs", async () => {
  const s = await scene();
  try {
    for (
      const backend of [
        commandBackend({ argv: [s.agent] }),
        // The native loop is vouch's own process, but the model's shell commands are programs.
        openaiBackend({ model: "m", baseUrl: "http://127.0.0.1:9/v1", apiKey: null }),
      ]
    ) {
      const error = await runInRepo({ ...s.options, backend }).then(() => null, (e) => e);
      assert.ok(isVouchError(error), String(error));
      assert.equal(error.code, "agent_unconfined");
      assert.match(error.message, new RegExp(`\`${backend.id}\` starts programs`));
      assert.match(error.message, /confinedAgent\(\(sandbox\) =>/);
    }
    assert.equal(existsSync(s.started), false, "the agent never started");
    assert.equal(existsSync(join(s.repo.dir, ".vouch", "runs")), false, "nothing ran");
    // An in-process function is the embedder's own code: it starts no program, it runs.
    const own = await runInRepo({
      ...s.options,
      backend: fnBackend("own", async (task) => {
        await Deno.writeTextFile(join(task.worktree, "answer.txt"), "42\n");
        return { done: true };
      }),
    });
    assert.equal(own.state, "verified");
  } finally {
    await s.repo.cleanup();
  }
});

Deno.test({
  name:
    "runInRepo + confinedAgent: the hostile agent reads no host file and writes nothing outside its worktree",
  ignore: skipReason !== null,
  fn: async () => {
    const s = await scene();
    try {
      const backend = confinedAgent((sandbox) => commandBackend({ argv: [s.agent], sandbox }), {
        readOnly: [join(s.agent, "..")],
      });
      const out = await runInRepo({ ...s.options, backend });
      assert.equal(out.state, "verified", JSON.stringify(out));
      const patch = await Deno.readTextFile(out.patchFile!);
      assert.match(patch, /\+42/);
      assert.doesNotMatch(patch, new RegExp(SECRET), "the host file reached the patch");
      assert.match(patch, /\+unread/, "the agent could not read the host file");
      assert.equal(existsSync(s.outside), false, "the agent wrote outside its worktree");
      assert.equal(existsSync(s.started), false, "the agent wrote outside its worktree");
      assert.equal(await Deno.readTextFile(s.secret), `${SECRET}\n`);
    } finally {
      await s.repo.cleanup();
    }
  },
});

Deno.test("runInRepo with unconfinedAgent: true runs the agent as it is, and says so", async () => {
  const s = await scene();
  try {
    const notes: string[] = [];
    const out = await runInRepo({
      ...s.options,
      backend: commandBackend({ argv: [s.agent] }),
      unconfinedAgent: true,
      onNote: (text) => notes.push(text),
    });
    assert.ok(
      notes.some((n) => /`command` runs unconfined \(unconfinedAgent\)/.test(n)),
      notes.join("\n"),
    );
    // What the opt-out means: the agent had this process's rights.
    assert.equal(existsSync(s.started), true);
    assert.match(await Deno.readTextFile(out.patchFile!), new RegExp(SECRET));
  } finally {
    await s.repo.cleanup();
  }
});
