// What a process holds that a stopped test environment must have let go of: TCP sockets (listening
// or connected) and child processes, read from /proc.
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

export interface Leftovers {
  /** Local ports of this process's TCP sockets that are listening. */
  listeningPorts: number[];
  /** TCP sockets of this process in any other state (open connections). */
  connections: number;
  /** This process's children, as "pid command line". */
  children: string[];
}

const LISTEN = '0A';
const TSX_COMPILER = /\/esbuild --service=/;
// TIME_WAIT (06) entries belong to no process: they never show up among a process's fds.

export function leftovers(pid: number | 'self' = 'self'): Leftovers {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      // the fd closed while we looked
    }
  }
  const listeningPorts: number[] = [];
  let connections = 0;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || !inodes.has(f[9])) continue;
      if (f[3] === LISTEN) listeningPorts.push(parseInt(f[1].split(':')[1], 16));
      else connections++;
    }
  }
  const children = readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
    readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map((child) => `${child} ${commandLine(child)}`),
  );
  // tsx compiles through esbuild service processes it starts on demand (one more for require()):
  // they are the test process's, not the environment's.
  return { listeningPorts, connections, children: children.filter((c) => !TSX_COMPILER.test(c)) };
}

function commandLine(pid: string): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return '(exited)';
  }
}
