// Where the simulated cloud keeps its instances. In memory by default; with SIMULATED_STATE_DIR, one
// JSON file per instance in that directory, so every process configured with the same directory
// (the adaptor pods, the PeerPod controller pod, the CLI that counts VMs) sees one cloud, as the
// processes of a real cluster see one cloud account. Instance IDs are claimed with an exclusive
// create, so two processes never hand out the same `sim-<n>`. Each instance's name also has a small
// file naming its ID, so an idempotent create finds an existing VM by name without reading every
// instance (at 10,000 VMs that read cost a create about a third of a second).
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Instance } from './types.ts';

export interface SimVm {
  instance: Instance;
  podNamespace: string;
}

export interface SimStore {
  values(): SimVm[];
  /** The instance called `name`, if one exists. */
  byName(name: string): SimVm | undefined;
  readonly size: number;
  /** A fresh instance number, never handed out before in this store. */
  claimId(): number;
  set(vm: SimVm): void;
  delete(id: string): boolean;
}

export class MemoryStore implements SimStore {
  private readonly vms = new Map<string, SimVm>();
  private readonly ids = new Map<string, string>();
  private next = 1;
  values(): SimVm[] {
    return [...this.vms.values()];
  }
  byName(name: string): SimVm | undefined {
    const id = this.ids.get(name);
    return id === undefined ? undefined : this.vms.get(id);
  }
  get size(): number {
    return this.vms.size;
  }
  claimId(): number {
    return this.next++;
  }
  set(vm: SimVm): void {
    this.vms.set(vm.instance.id, vm);
    this.ids.set(vm.instance.name, vm.instance.id);
  }
  delete(id: string): boolean {
    const vm = this.vms.get(id);
    if (!vm) return false;
    if (this.ids.get(vm.instance.name) === id) this.ids.delete(vm.instance.name);
    return this.vms.delete(id);
  }
}

export class DirectoryStore implements SimStore {
  private readonly ids: string;
  private readonly names: string;
  constructor(private readonly dir: string) {
    this.ids = path.join(dir, 'ids');
    this.names = path.join(dir, 'names');
    mkdirSync(this.ids, { recursive: true });
    mkdirSync(this.names, { recursive: true });
  }

  values(): SimVm[] {
    const out: SimVm[] = [];
    for (const f of readdirSync(this.dir)) {
      if (!f.endsWith('.json')) continue;
      const vm = this.read(path.join(this.dir, f));
      if (vm) out.push(vm);
    }
    return out;
  }

  byName(name: string): SimVm | undefined {
    let id: string;
    try {
      id = readFileSync(this.nameFile(name), 'utf8');
    } catch {
      return undefined;
    }
    const vm = this.read(path.join(this.dir, `${id}.json`));
    // A name file left by a process that died mid-delete names nothing.
    return vm?.instance.name === name ? vm : undefined;
  }

  /** undefined when the file is gone (or being written) because another process deleted it meanwhile. */
  private read(file: string): SimVm | undefined {
    try {
      const raw = JSON.parse(readFileSync(file, 'utf8')) as SimVm;
      return { ...raw, instance: { ...raw.instance, createdAt: new Date(raw.instance.createdAt) } };
    } catch {
      return undefined;
    }
  }

  private nameFile(name: string): string {
    return path.join(this.names, encodeURIComponent(name));
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
    writeAtomically(file, JSON.stringify(vm));
    // After the instance: a name file always names an instance that was written.
    writeAtomically(this.nameFile(vm.instance.name), vm.instance.id);
  }

  delete(id: string): boolean {
    const file = path.join(this.dir, `${id}.json`);
    const name = this.read(file)?.instance.name;
    try {
      rmSync(file);
    } catch {
      return false;
    }
    if (name !== undefined) {
      try {
        const nameFile = this.nameFile(name);
        if (readFileSync(nameFile, 'utf8') === id) rmSync(nameFile);
      } catch {
        // Already gone: another process deleted the name with its instance.
      }
    }
    return true;
  }
}

/** Written aside and renamed: a reader never sees half a file. */
function writeAtomically(file: string, data: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}
