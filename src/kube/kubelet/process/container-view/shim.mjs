// Preloaded (NODE_OPTIONS --import) into every process container, before the program's own code:
// it makes the process see its container's filesystem and network the way a real container
// would, without root or namespaces.
// - Paths under a volume's mountPath go to the volume's host path (longest mountPath wins;
//   relative paths are taken from process.cwd()); writes under a read-only mount fail with
//   EROFS. node:fs and node:fs/promises are patched, then syncBuiltinESMExports() makes named
//   ESM imports see the patched functions.
// - A server that listens on no particular address (none, '', 0.0.0.0, ::) listens on the pod's
//   IP instead, so two pods can use the same port and a Service's Endpoints reach the right one.
// - The working directory is the container's workingDir, mapped like any path.
// Plain JavaScript: it loads before the program registers tsx. It must never break the program,
// so a path it cannot interpret is passed through untouched.
import fs from 'node:fs';
import net from 'node:net';
import { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const viewFile = process.env.PEERPODS_CONTAINER_VIEW;
if (viewFile) install(JSON.parse(fs.readFileSync(viewFile, 'utf8')));

function install(view) {
  const stripSlash = (p) => (p.length > 1 ? p.replace(/\/+$/, '') : p);
  const mounts = (view.mounts ?? [])
    .map((m) => ({
      mountPath: stripSlash(path.posix.normalize(m.mountPath)),
      hostPath: m.hostPath,
      readOnly: !!m.readOnly,
    }))
    .sort((a, b) => b.mountPath.length - a.mountPath.length);
  const hostRoots = mounts.map((m) => stripSlash(m.hostPath));
  const within = (p, dir) => p === dir || p.startsWith(dir === '/' ? '/' : `${dir}/`);
  // The image's own files — this checkout: the CLI, its sources, node_modules — are never behind
  // a volume. In a real image they live where nothing is mounted; here the checkout may sit under
  // a mountPath (a clone in /tmp, and an emptyDir at /tmp), and hiding it would hide the program.
  const imageRoot = stripSlash(fileURLToPath(new URL('../../../../../', import.meta.url)));

  /** The mount a path falls in, with its host path; undefined when it is not a mounted path. */
  function lookup(p) {
    let s;
    try {
      if (typeof p === 'string') s = p;
      else if (p instanceof URL) s = p.protocol === 'file:' ? fileURLToPath(p) : undefined;
      else if (Buffer.isBuffer(p)) s = p.toString('utf8');
      if (s === undefined || s === '') return undefined;
      const abs = stripSlash(path.isAbsolute(s) ? path.normalize(s) : path.resolve(process.cwd(), s));
      // Node's own fs code calls back into these functions with paths already mapped.
      if (hostRoots.some((h) => within(abs, h)) || within(abs, imageRoot)) return undefined;
      for (const m of mounts) {
        if (!within(abs, m.mountPath)) continue;
        const rest = m.mountPath === '/' ? abs : abs.slice(m.mountPath.length);
        return { host: m.hostPath + rest, readOnly: m.readOnly, path: s };
      }
    } catch {
      // not a path we understand
    }
    return undefined;
  }

  const SYSCALLS = {
    writeFile: 'open',
    appendFile: 'open',
    truncate: 'open',
    createWriteStream: 'open',
    copyFile: 'copyfile',
    utimes: 'utime',
    lutimes: 'lutime',
  };
  function erofs(name, target) {
    const base = name.replace(/Sync$/, '');
    const syscall = SYSCALLS[base] ?? base.toLowerCase();
    const err = new Error(`EROFS: read-only file system, ${syscall} '${target}'`);
    return Object.assign(err, { errno: -30, code: 'EROFS', syscall, path: target });
  }

  const { O_WRONLY, O_RDWR, O_APPEND, O_CREAT, O_TRUNC } = fs.constants;
  function writesFlags(flags) {
    if (typeof flags === 'string') return /[wa+]/.test(flags);
    if (typeof flags === 'number') return (flags & (O_WRONLY | O_RDWR | O_APPEND | O_CREAT | O_TRUNC)) !== 0;
    return false;
  }

  // name -> the path arguments: [index, writes] with writes true, false or 'flags' (open's next argument).
  const R = [[0, false]];
  const W = [[0, true]];
  const SPECS = {
    access: R,
    appendFile: W,
    chmod: W,
    chown: W,
    lchown: W,
    copyFile: [
      [0, false],
      [1, true],
    ],
    cp: [
      [0, false],
      [1, true],
    ],
    exists: R,
    lstat: R,
    stat: R,
    statfs: R,
    link: [
      [0, false],
      [1, true],
    ],
    lutimes: W,
    mkdir: W,
    mkdtemp: W,
    open: [[0, 'flags']],
    opendir: R,
    readdir: R,
    readFile: R,
    readlink: R,
    realpath: R,
    rename: [
      [0, true],
      [1, true],
    ],
    rm: W,
    rmdir: W,
    symlink: [[1, true]],
    truncate: W,
    unlink: W,
    utimes: W,
    writeFile: W,
    watch: R,
  };
  const CALLBACK_ONLY = { watchFile: R, unwatchFile: R, createReadStream: R, createWriteStream: W, openAsBlob: R };
  const NO_SYNC = new Set(['watch']);

  function wrap(orig, name, spec, style) {
    const wrapped = function (...args) {
      for (const [i, writes] of spec) {
        const hit = lookup(args[i]);
        if (!hit) continue;
        if (hit.readOnly && (writes === 'flags' ? writesFlags(args[i + 1]) : writes)) {
          const err = erofs(name, hit.path);
          if (style === 'promise') return Promise.reject(err);
          const cb = args[args.length - 1];
          if (style === 'callback' && typeof cb === 'function') {
            process.nextTick(cb, err);
            return undefined;
          }
          throw err;
        }
        args[i] = hit.host;
      }
      return Reflect.apply(orig, this, args);
    };
    for (const key of Reflect.ownKeys(orig)) {
      if (['length', 'name', 'prototype', 'caller', 'arguments'].includes(key)) continue;
      try {
        wrapped[key] = orig[key];
      } catch {
        // read-only property: keep going
      }
    }
    return wrapped;
  }

  function patch(target, name, spec, style) {
    const orig = target[name];
    if (typeof orig !== 'function') return;
    try {
      target[name] = wrap(orig, name, spec, style);
      if (typeof orig.native === 'function') target[name].native = wrap(orig.native, name, spec, style);
    } catch {
      // not writable in this Node version
    }
  }

  if (view.workingDir) {
    const dir = lookup(view.workingDir)?.host ?? view.workingDir;
    try {
      if (fs.statSync(dir).isDirectory()) process.chdir(dir);
    } catch {
      // a workingDir that exists nowhere here: stay where the runtime started us
    }
  }

  const promises = fs.promises;
  for (const [name, spec] of Object.entries(SPECS)) {
    patch(fs, name, spec, 'callback');
    if (!NO_SYNC.has(name)) patch(fs, name === 'exists' ? 'existsSync' : `${name}Sync`, spec, 'sync');
    if (name !== 'exists') patch(promises, name, spec, 'promise');
  }
  for (const [name, spec] of Object.entries(CALLBACK_ONLY)) patch(fs, name, spec, 'callback');
  patch(process, 'chdir', R, 'sync');
  syncBuiltinESMExports();

  const UNSPECIFIED = new Set([undefined, null, '', '0.0.0.0', '::']);
  const podIP = view.podIP;
  function listenArgs(args) {
    const first = args[0];
    if (first !== null && typeof first === 'object') {
      // A handle, an fd or a pipe path is no TCP address.
      if (first._handle || first.fd !== undefined || (first.path !== undefined && first.port === undefined))
        return args;
      return UNSPECIFIED.has(first.host) ? [{ ...first, host: podIP }, ...args.slice(1)] : args;
    }
    if (first === undefined || typeof first === 'function')
      return [0, podIP, ...(first === undefined ? args.slice(1) : args)];
    if (typeof first === 'string' && !/^\d+$/.test(first)) return args;
    if (typeof args[1] === 'string' || args[1] === null)
      return UNSPECIFIED.has(args[1]) ? [first, podIP, ...args.slice(2)] : args;
    return [first, podIP, ...args.slice(1)];
  }
  if (podIP) {
    const listen = net.Server.prototype.listen;
    net.Server.prototype.listen = function (...args) {
      return Reflect.apply(listen, this, listenArgs(args));
    };
  }
}
