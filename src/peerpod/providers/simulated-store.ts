// Where the simulated cloud keeps its instances. In memory by default; with SIMULATED_STATE_DIR, one
// JSON file per instance in that directory, so every process configured with the same directory
// (the adaptor pods, the PeerPod controller pod, the CLI that counts VMs) sees one cloud, as the
// processes of a real cluster see one cloud account. Instance IDs are claimed with an exclusive
// create, so two processes never hand out the same `sim-<n>`.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Instance } from './types.ts';

export interface SimVm {
  instance: Instance;
  podNamespace: string;
}

export interface SimStore {
  values(): SimVm[];
  readonly size: number;
  /** A fresh instance number, never handed out before in this store. */
  claimId(): number;
  set(vm: SimVm): void;
  delete(id: string): boolean;
}

export class MemoryStore implements SimStore {
  private readonly vms = new Map<string, SimVm>();
  private next = 1;
  values(): SimVm[] {
    return [...this.vms.values()];
  }
  get size(): number {
    return this.vms.size;
  }
  claimId(): number {
    return this.next++;
  }
  set(vm: SimVm): void {
    this.vms.set(vm.instance.id, vm);
  }
  delete(id: string): boolean {
    return this.vms.delete(id);
  }
}

export class DirectoryStore implements SimStore {
  private readonly ids: string;
  constructor(private readonly dir: string) {
    this.ids = path.join(dir, 'ids');
    mkdirSync(this.ids, { recursive: true });
  }

  values(): SimVm[] {
    const out: SimVm[] = [];
    for (const f of readdirSync(this.dir)) {
      if (!f.endsWith('.json')) continue;
      try {
        const raw = JSON.parse(readFileSync(path.join(this.dir, f), 'utf8')) as SimVm;
        out.push({ ...raw, instance: { ...raw.instance, createdAt: new Date(raw.instance.createdAt) } });
      } catch {
        // Deleted (or being written) by another process meanwhile.
      }
    }
    return out;
  }

  get size(): number {
    return readdirSync(this.dir).filter((f) => f.endsWith('.json')).length;
  }

  claimId(): number {
    for (let n = readdirSync(this.ids).length + 1; ; n++) {
      try {
        writeFileSync(path.join(this.ids, String(n)), '', { flag: 'wx' });
        return n;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
  }

  set(vm: SimVm): void {
    const file = path.join(this.dir, `${vm.instance.id}.json`);
    // Written aside and renamed: a reader never sees half a file.
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(vm));
    renameSync(tmp, file);
  }

  delete(id: string): boolean {
    const file = path.join(this.dir, `${id}.json`);
    try {
      rmSync(file);
      return true;
    } catch {
      return false;
    }
  }
}
