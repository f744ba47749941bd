/**
 * The source of the file helper: a small program vouch starts with its own
 * runtime (`deno eval` or `node -e`) inside the agent's sandbox, in the
 * worktree, to serve the agent's file requests. It speaks one JSON object per
 * line over stdio (requests bounded at {@linkcode HELPER_MAX_REQUEST_BYTES})
 * and never opens a path by name: it holds a descriptor of the worktree and
 * opens each component relative to the directory descriptor before it
 * (`/proc/self/fd/N/<name>`, `O_NOFOLLOW`, directories with `O_DIRECTORY`),
 * so a link or a rename race cannot lead it out of the tree. Reads take
 * regular files only, bounded by `fstat` before reading; writes go to regular
 * files with one link only. Node builtins only (it runs on Deno and Node).
 *
 * @module
 */

/** Longest request line the helper accepts (a 2 M-character write as base64 fits). */
export const HELPER_MAX_REQUEST_BYTES = 16 * 1024 * 1024;

/** The helper program (an ES module). */
export const FILE_HELPER_SOURCE = String.raw`
import fs from "node:fs";
import { Buffer } from "node:buffer";
import process from "node:process";
const C = fs.constants;
const MAX_REQUEST = ${HELPER_MAX_REQUEST_BYTES};
const ROOT = fs.openSync(".", C.O_RDONLY | C.O_DIRECTORY);
const at = (dir, name) => "/proc/self/fd/" + dir + "/" + name;
class Refusal {
  constructor(code, message) { this.code = code; this.message = message; }
}
const refuse = (code, message) => { throw new Refusal(code, message); };
function parts(path) {
  if (typeof path !== "string" || path.length > 4096) refuse("bad_request", "bad path");
  if (path === "") return [];
  const out = path.split("/");
  for (const p of out) {
    if (p === "" || p === "." || p === ".." || p.includes("\0") || Buffer.byteLength(p) > 255) {
      refuse("bad_request", "bad path component " + JSON.stringify(p.slice(0, 50)));
    }
  }
  return out;
}
function why(e, dir, name, shown) {
  if (e instanceof Refusal) return e;
  const code = e && e.code;
  if (code === "ENOENT") return new Refusal("not_found", shown + " does not exist");
  if (code === "ELOOP") return new Refusal("symlink", shown + " is a symbolic link");
  if (code === "ENOTDIR") {
    let link = false;
    try { link = fs.lstatSync(at(dir, name)).isSymbolicLink(); } catch { /* gone */ }
    return link
      ? new Refusal("symlink", shown + " is a symbolic link")
      : new Refusal("not_dir", shown + " is not a directory");
  }
  if (code === "EISDIR") return new Refusal("not_regular", shown + " is a directory");
  if (code === "ENXIO" || code === "ENODEV") {
    return new Refusal("not_regular", shown + " is not a regular file");
  }
  if (code === "EROFS" || code === "EACCES" || code === "EPERM") {
    return new Refusal("denied", shown + ": " + code);
  }
  return new Refusal("io", shown + ": " + String(code || (e && e.message) || e).slice(0, 200));
}
const DIR_FLAGS = C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW;
function openDir(dir, name, create, shown) {
  try {
    return fs.openSync(at(dir, name), DIR_FLAGS);
  } catch (e) {
    if (!(create && e && e.code === "ENOENT")) throw why(e, dir, name, shown);
  }
  try { fs.mkdirSync(at(dir, name), 0o777); } catch (e) {
    if (!(e && e.code === "EEXIST")) throw why(e, dir, name, shown);
  }
  try { return fs.openSync(at(dir, name), DIR_FLAGS); } catch (e) { throw why(e, dir, name, shown); }
}
// The directory descriptor holding the last component's parent (the caller closes it).
function walk(ps, create) {
  let dir = ROOT;
  for (let i = 0; i < ps.length; i++) {
    const shown = ps.slice(0, i + 1).join("/");
    let next;
    try { next = openDir(dir, ps[i], create, shown); } finally { if (dir !== ROOT) fs.closeSync(dir); }
    dir = next;
  }
  return dir;
}
function withFile(path, create, flags, fn) {
  const ps = parts(path);
  if (ps.length === 0) refuse("not_regular", "the worktree root is a directory");
  const name = ps[ps.length - 1];
  const dir = walk(ps.slice(0, -1), create);
  let fd;
  try {
    try { fd = fs.openSync(at(dir, name), flags, 0o666); } catch (e) { throw why(e, dir, name, path); }
    const st = fstat(fd);
    if (!st.isFile()) refuse("not_regular", path + " is not a regular file");
    if (st.nlink > 1) refuse("linked", path + " has " + st.nlink + " hard links");
    return fn(fd, st);
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
    if (dir !== ROOT) fs.closeSync(dir);
  }
}
// fstat through Deno's own API where it runs (Node's fs.fstatSync there builds a full Stats
// object: about three times the cost); /proc/self/fd/N names the descriptor's own file.
const DENO = globalThis.Deno;
const fstat = DENO !== undefined && typeof DENO.statSync === "function"
  ? (fd) => {
    const s = DENO.statSync("/proc/self/fd/" + fd);
    if (typeof s.nlink !== "number") return fs.fstatSync(fd);
    return { isFile: () => s.isFile, nlink: s.nlink, size: s.size };
  }
  : (fd) => fs.fstatSync(fd);
const FLAGS = C.O_NOFOLLOW | C.O_NONBLOCK | C.O_NOCTTY;
function read(req) {
  const max = Number.isSafeInteger(req.max) && req.max >= 0 ? req.max : 0;
  return withFile(req.path, false, C.O_RDONLY | FLAGS, (fd, st) => {
    if (st.size > max) refuse("too_large", req.path + " has " + st.size + " bytes (limit " + max + ")");
    // Only the bytes read are ever sent (allocUnsafe: no zero-filling of what is overwritten).
    const buf = Buffer.allocUnsafe(Math.min(st.size, max) + 1);
    let n = 0;
    for (;;) {
      const got = fs.readSync(fd, buf, n, buf.length - n, n);
      if (got === 0) break;
      n += got;
      if (n > max) refuse("too_large", req.path + " grew past " + max + " bytes");
      if (n === buf.length) break;
    }
    return { data: buf.subarray(0, n).toString("base64") };
  });
}
function write(req) {
  if (typeof req.data !== "string") refuse("bad_request", "no data");
  const bytes = Buffer.from(req.data, "base64");
  return withFile(req.path, true, C.O_WRONLY | C.O_CREAT | FLAGS, (fd) => {
    // Over the old bytes, then cut to the new length: truncating to 0 first makes ext4
    // (auto_da_alloc) flush the file at close, ~4 ms per write.
    let n = 0;
    while (n < bytes.length) n += fs.writeSync(fd, bytes, n, bytes.length - n, n);
    fs.ftruncateSync(fd, n);
    return { bytes: n };
  });
}
function list(req) {
  const ps = parts(req.path);
  const max = Number.isSafeInteger(req.max) && req.max > 0 ? req.max : 1000;
  let dir = ROOT;
  if (ps.length > 0) {
    const parent = walk(ps.slice(0, -1), false);
    try { dir = openDir(parent, ps[ps.length - 1], false, req.path); } finally {
      if (parent !== ROOT) fs.closeSync(parent);
    }
  }
  try {
    const all = fs.readdirSync("/proc/self/fd/" + dir, { withFileTypes: true });
    return {
      total: all.length,
      entries: all.slice(0, max).map((e) => [e.name, e.isDirectory()]),
    };
  } catch (e) {
    throw why(e, dir, "", req.path === "" ? "." : req.path);
  } finally {
    if (dir !== ROOT) fs.closeSync(dir);
  }
}
const OPS = { read, write, list };
function answer(line) {
  let req;
  try { req = JSON.parse(line); } catch { return { id: null, ok: false, code: "bad_request", message: "not JSON" }; }
  const id = req && Number.isSafeInteger(req.id) ? req.id : null;
  try {
    const op = req && typeof req.op === "string" && Object.hasOwn(OPS, req.op) ? OPS[req.op] : null;
    if (op === null) refuse("bad_request", "unknown op");
    return { id, ok: true, ...op(req) };
  } catch (e) {
    const r = why(e, ROOT, "", "request");
    return { id, ok: false, code: r.code, message: String(r.message).slice(0, 500) };
  }
}
let parts_ = [];
let size = 0;
process.stdin.on("data", (chunk) => {
  let start = 0;
  for (;;) {
    const nl = chunk.indexOf(10, start);
    if (nl < 0) {
      size += chunk.length - start;
      if (size > MAX_REQUEST) {
        process.stdout.write(JSON.stringify({ id: null, ok: false, code: "bad_request", message: "request too long" }) + "\n");
        process.exit(2);
      }
      parts_.push(chunk.subarray(start));
      return;
    }
    parts_.push(chunk.subarray(start, nl));
    const line = Buffer.concat(parts_).toString("utf8");
    parts_ = [];
    size = 0;
    start = nl + 1;
    if (line.trim() !== "") process.stdout.write(JSON.stringify(answer(line)) + "\n");
  }
});
process.stdin.on("end", () => process.exit(0));
`;
