/**
 * The source of vouch's mocha hook: a CommonJS file loaded into every node
 * process of a check through `NODE_OPTIONS=--require <hook>`. In a process
 * that loads mocha's `Runner` it listens to the runner's `pass`, `fail` and
 * `pending` events and, at `end`, appends one JSON line
 * `{"vouch":"mocha-report","version":1,"tests":[{id,file,status}]}` to the
 * file named by `VOUCH_MOCHA_REPORT`. It registers listeners only: it never
 * changes which tests run, how, or what mocha prints. In any other process
 * it does nothing but pass `Module._load` through. Under `mocha --parallel`
 * only the main process records (its runner replays every worker's events).
 *
 * @module
 */

/** The environment variable naming the report file. */
export const MOCHA_REPORT_ENV = "VOUCH_MOCHA_REPORT";

/** The hook, as the text of a `.cjs` file. */
export const MOCHA_HOOK_SOURCE = `"use strict";
// vouch mocha hook: records per-test outcomes; registers event listeners only.
(function () {
  var out = process.env.${MOCHA_REPORT_ENV};
  // mocha --parallel: the workers' runs are replayed by the main process's runner; record that one.
  if (!out || process.env.MOCHA_WORKER_ID !== undefined) return;
  var Module = require("module");
  var fs = require("fs");
  var original = Module._load;
  var seen = typeof WeakSet === "function" ? new WeakSet() : null;
  function isRunner(x) {
    return typeof x === "function" && x.constants && x.constants.EVENT_TEST_PASS === "pass" &&
      x.constants.EVENT_RUN_END === "end" && x.prototype && typeof x.prototype.run === "function";
  }
  function title(t) {
    try { return typeof t.fullTitle === "function" ? t.fullTitle() : String(t.title); }
    catch (e) { return String(t && t.title); }
  }
  function attach(runner) {
    var tests = [];
    var done = false;
    function add(t, status) {
      if (tests.length < 1000000) tests.push({ id: title(t), file: t && t.file ? String(t.file) : null, status: status });
    }
    runner.on("pass", function (t) { add(t, "passed"); });
    runner.on("fail", function (t) { add(t, "failed"); });
    runner.on("pending", function (t) { add(t, "skipped"); });
    runner.once("end", function () {
      if (done) return;
      done = true;
      try {
        fs.appendFileSync(out, JSON.stringify({ vouch: "mocha-report", version: 1, tests: tests }) + "\\n");
      } catch (e) { /* an unwritable report is a missing report */ }
    });
  }
  Module._load = function () {
    var exported = original.apply(this, arguments);
    try {
      if (isRunner(exported) && !(seen && seen.has(exported))) {
        if (seen) seen.add(exported);
        var run = exported.prototype.run;
        exported.prototype.run = function () {
          try { if (!this.__vouchAttached) { this.__vouchAttached = true; attach(this); } } catch (e) {}
          return run.apply(this, arguments);
        };
      }
    } catch (e) { /* never disturb a load */ }
    return exported;
  };
})();
`;
