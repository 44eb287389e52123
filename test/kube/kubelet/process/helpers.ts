// Shared setup of the process runtime tests: a cluster whose `ghcr.io/peerpods/peerpods` image runs
// this checkout's CLI, pods written through the store, and /proc lookups of the processes.
import { readdirSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import type { ControlPlaneOptions } from '../../../../src/kube/index.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';
import { createPod, defs, getPod, until } from '../../controllers/scheduler/helpers.ts';

export const IMAGE = 'ghcr.io/peerpods/peerpods:v0.1.0';
export const CLI = fileURLToPath(new URL('../../../../bin/peerpods.js', import.meta.url));

export function startProcessCluster(options: ControlPlaneOptions = {}): Promise<TestCluster> {
  return startTestCluster({
    nodes: 1,
    processRuntime: { images: ['ghcr.io/peerpods/peerpods'], entrypoint: [process.execPath, CLI] },
    ...options,
  });
}

/** A unique value for the MARKER env var, to find a pod's processes in /proc. */
export function marker(): string {
  return `m-${randomBytes(6).toString('hex')}`;
}

/** PIDs of live (non-zombie) processes whose environment holds MARKER=<value>. */
export function pidsWithMarker(value: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const env = readFileSync(`/proc/${entry}/environ`, 'latin1');
      if (!env.split('\0').includes(`MARKER=${value}`)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      pids.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

/** PIDs of live processes whose command line holds every one of `args`. */
/** Processes of this test (descendants of this process) whose argv holds every one of `args`. */
export function pidsWithCmdline(...args: string[]): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'latin1').split('\0');
      const pid = Number(entry);
      if (args.every((a) => argv.includes(a)) && alive(pid) && descendsFromUs(pid)) pids.push(pid);
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Other tests running at the same time start the same commands; only ours count. */
function descendsFromUs(pid: number): boolean {
  for (let p = pid, hops = 0; p > 1 && hops < 64; hops++) {
    if (p === process.pid) return true;
    try {
      // The command name in field 2 may hold spaces and parentheses; the ppid follows the last ')'.
      const stat = readFileSync(`/proc/${p}/stat`, 'latin1');
      p = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      return false;
    }
  }
  return false;
}

export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

/** A pod of one process container `c`; `container` is merged into it. */
export async function createProcessPod(
  cp: TestCluster,
  name: string,
  container: JsonObject,
  spec: JsonObject = {},
  ns = 'default',
): Promise<void> {
  await createPod(cp, name, { containers: [{ name: 'c', image: IMAGE, ...container }], ...spec }, ns);
}

export const status = (cp: TestCluster, name: string): JsonObject => (getPod(cp, name).status ?? {}) as JsonObject;
export const containerStatus = (cp: TestCluster, name: string, c = 'c'): JsonObject | undefined =>
  ((status(cp, name).containerStatuses ?? []) as JsonObject[]).find((s) => s.name === c);
export const condition = (cp: TestCluster, name: string, type: string): JsonObject | undefined =>
  ((status(cp, name).conditions ?? []) as JsonObject[]).find((c) => c.type === type);

export function stateOf(cs: JsonObject | undefined): {
  running?: JsonObject;
  waiting?: JsonObject;
  terminated?: JsonObject;
} {
  return (cs?.state ?? {}) as { running?: JsonObject; waiting?: JsonObject; terminated?: JsonObject };
}

export function podGone(cp: TestCluster, name: string, ns = 'default'): boolean {
  return !cp.internals.store.getStored(defs(cp).pods, ns, name);
}

/** The Events about a pod in `default`. */
export function podEvents(cp: TestCluster, name: string): JsonObject[] {
  return cp.internals.storage
    .list('/core/events/default/')
    .map((e) => JSON.parse(e.json) as JsonObject)
    .filter((e) => (e.involvedObject as JsonObject).name === name);
}

export { createPod, defs, getPod, until };
