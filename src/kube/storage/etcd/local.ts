// A single-member etcd on loopback, started from Debian's `etcd` binary, with its data in a
// directory of ours: for users who want the store in etcd without running one. Its PID is kept
// beside the data, so a start after this process was SIGKILLed stops the etcd it left behind
// (etcd holds its data directory's lock for as long as it runs).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, closeSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface LocalEtcdOptions {
  /** Where etcd keeps its data (`member/`), its PID file and its log (`etcd.log`). */
  dir: string;
  /** The etcd binary. Default `etcd` on PATH (Debian's etcd-server package). */
  binary?: string;
  /** How long etcd may take to answer its health check. Default 30 s. */
  startTimeoutMs?: number;
  /** Client port on 127.0.0.1. Default: a free one. */
  port?: number;
}

const PID_FILE = 'etcd.pid';
const LOG_FILE = 'etcd.log';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The etcd a killed run left on this directory, if its process is still that etcd. */
function leftover(dir: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(path.join(dir, PID_FILE), 'utf8').trim());
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return undefined;
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const i = argv.indexOf('--data-dir');
    return i >= 0 && argv[i + 1] === path.join(dir, 'data') ? pid : undefined;
  } catch {
    return undefined;
  }
}

async function healthy(endpoint: string): Promise<boolean> {
  try {
    const res = await fetch(`${endpoint}/health`, { signal: AbortSignal.timeout(2_000) });
    const body = (await res.json()) as { health?: string };
    return res.ok && body.health === 'true';
  } catch {
    return false;
  }
}

export class LocalEtcd {
  private constructor(
    readonly endpoint: string,
    readonly dir: string,
    private readonly child: ChildProcess,
  ) {}

  /** etcd's process ID. */
  get pid(): number {
    return this.child.pid ?? 0;
  }

  static async start(options: LocalEtcdOptions): Promise<LocalEtcd> {
    const dir = path.resolve(options.dir);
    mkdirSync(dir, { recursive: true });
    const stale = leftover(dir);
    if (stale !== undefined) {
      process.kill(stale, 'SIGKILL');
      for (let i = 0; i < 100 && alive(stale); i++) await sleep(50);
    }
    const [clientPort, peerPort] = [options.port ?? (await freePort()), await freePort()];
    const endpoint = `http://127.0.0.1:${clientPort}`;
    const peer = `http://127.0.0.1:${peerPort}`;
    const log = openSync(path.join(dir, LOG_FILE), 'a');
    let child: ChildProcess;
    try {
      child = spawn(
        options.binary ?? 'etcd',
        [
          '--name',
          'peerpods',
          '--data-dir',
          path.join(dir, 'data'),
          '--listen-client-urls',
          endpoint,
          '--advertise-client-urls',
          endpoint,
          '--listen-peer-urls',
          peer,
          '--initial-advertise-peer-urls',
          peer,
          '--initial-cluster',
          `peerpods=${peer}`,
          '--logger',
          'zap',
          '--log-level',
          'warn',
        ],
        { stdio: ['ignore', log, log] },
      );
    } finally {
      closeSync(log);
    }
    const spawned = await new Promise<Error | undefined>((resolve) => {
      child.once('spawn', () => resolve(undefined));
      child.once('error', (err) => resolve(err));
    });
    if (spawned) {
      throw new Error(
        `cannot start etcd (${options.binary ?? 'etcd'}): ${spawned.message}; install Debian's etcd-server package`,
      );
    }
    writeFileSync(path.join(dir, PID_FILE), `${child.pid}\n`);
    const etcd = new LocalEtcd(endpoint, dir, child);
    const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
    while (!(await healthy(endpoint))) {
      if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
        await etcd.stop();
        throw new Error(`etcd did not become healthy at ${endpoint} (see ${path.join(dir, LOG_FILE)})`);
      }
      await sleep(100);
    }
    return etcd;
  }

  /** SIGTERM (etcd flushes and releases its lock), SIGKILL after 10 s. */
  async stop(): Promise<void> {
    const child = this.child;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(path.join(this.dir, PID_FILE), { force: true });
  }
}
