// QEMU processes of the stack, found through /proc by their QMP socket under the state directory:
// the independent check that stopping left no VM behind (the provider's own records could be wrong).
import { cmdlineArgs, findPidsWithArg } from '../providers/procfs.ts';

export interface VmProcess {
  pid: number;
  args: string[];
}

export async function qemuProcessesUnder(stateDir: string): Promise<VmProcess[]> {
  const out: VmProcess[] = [];
  for (const pid of await findPidsWithArg('-qmp')) {
    const args = await cmdlineArgs(pid);
    if (args?.some((a) => a.includes(stateDir))) out.push({ pid, args });
  }
  return out;
}

/** `-smp` and `-m` of a QEMU command line. */
export function vmSizeOfArgs(args: string[]): { vcpus: number; memoryMiB: number } {
  const after = (flag: string) => Number(args[args.indexOf(flag) + 1] ?? NaN);
  return { vcpus: after('-smp'), memoryMiB: after('-m') };
}
