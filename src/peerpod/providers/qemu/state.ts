// The qemu provider's memory across restarts: one JSON record per VM in the state directory. Like
// a cloud's API, it is the source of truth for list and delete after the operator restarts (the
// in-memory-only VM map upstream had leaked VMs on every restart: #328, #375, #394).
import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface VmRecord {
  version: 1;
  uuid: string;
  name: string;
  /** null between writing the record and the process starting. */
  pid: number | null;
  /** The start time of `pid` (/proc/<pid>/stat): the process is ours while the PID has it, whatever it execs. */
  pidStartTime?: string;
  tags: Record<string, string>;
  createdAt: string;
  qmpSocket: string;
  logFile: string;
  ip: string;
  vcpus: number;
  memoryMiB: number;
  podName: string;
  podNamespace: string;
  sandboxId: string;
}

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// sun_path holds 108 bytes including the terminating NUL.
const MAX_SOCKET_PATH = 107;

export class StateStore {
  constructor(readonly dir: string) {}

  async init(): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
  }

  recordPath(uuid: string): string {
    return path.join(this.dir, `${uuid}.json`);
  }

  logPath(uuid: string): string {
    return path.join(this.dir, `${uuid}.log`);
  }

  /** Where QEMU writes its own PID once it is up (`-pidfile`). */
  pidFilePath(uuid: string): string {
    return path.join(this.dir, `${uuid}.pid`);
  }

  /**
   * `<dir>/<uuid>.qmp`, unless that is too long for a unix socket address (deep test directories);
   * then a per-state-dir directory under the system temp dir.
   */
  async socketPath(uuid: string): Promise<string> {
    const inDir = path.join(this.dir, `${uuid}.qmp`);
    if (Buffer.byteLength(inDir) <= MAX_SOCKET_PATH) return inDir;
    const short = path.join(
      tmpdir(),
      `peerpods-qmp-${createHash('sha256').update(this.dir).digest('hex').slice(0, 12)}`,
    );
    await mkdir(short, { recursive: true, mode: 0o700 });
    return path.join(short, `${uuid}.qmp`);
  }

  async read(uuid: string): Promise<VmRecord | undefined> {
    if (!UUID_RE.test(uuid)) return undefined;
    let raw: string;
    try {
      raw = await readFile(this.recordPath(uuid), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    return parseRecord(raw, uuid);
  }

  /** Write-then-rename, so a crash never leaves a half-written record behind. */
  async write(rec: VmRecord): Promise<void> {
    const file = this.recordPath(rec.uuid);
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, `${JSON.stringify(rec, null, 2)}\n`, { mode: 0o600 });
    await rename(tmp, file);
  }

  async list(): Promise<VmRecord[]> {
    let entries: string[];
    try {
      entries = await readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const out: VmRecord[] = [];
    for (const e of entries) {
      const m = /^(.+)\.json$/.exec(e);
      if (!m || !UUID_RE.test(m[1])) continue;
      const rec = await this.read(m[1]);
      if (rec) out.push(rec);
    }
    return out;
  }

  async remove(rec: Pick<VmRecord, 'uuid'> & Partial<Pick<VmRecord, 'qmpSocket' | 'logFile'>>): Promise<void> {
    await rm(this.recordPath(rec.uuid), { force: true });
    await rm(rec.qmpSocket ?? (await this.socketPath(rec.uuid)), { force: true });
    await rm(rec.logFile ?? this.logPath(rec.uuid), { force: true });
    await rm(this.pidFilePath(rec.uuid), { force: true });
  }
}

function parseRecord(raw: string, uuid: string): VmRecord | undefined {
  try {
    const rec = JSON.parse(raw) as VmRecord;
    if (rec.version !== 1 || rec.uuid !== uuid || typeof rec.name !== 'string') return undefined;
    return rec;
  } catch {
    // A record that is not JSON cannot be acted on; list() skips it and delete() removes it.
    return undefined;
  }
}
