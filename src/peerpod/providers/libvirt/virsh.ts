// libvirt through the `virsh` CLI: no npm libvirt binding builds here, and virsh speaks every
// transport libvirt does (qemu:///system, qemu+ssh://...). Arguments go straight to execve, never
// through a shell.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

export class VirshError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(`virsh ${args.join(' ')}: ${stderr.trim().replace(/\s*\n\s*/g, '; ') || `exit code ${exitCode}`}`);
    this.name = 'VirshError';
  }

  /** VIR_ERR_NO_DOMAIN as virsh prints it. */
  get noDomain(): boolean {
    return /failed to get domain|Domain not found|no domain with matching/i.test(this.stderr);
  }

  get noVolume(): boolean {
    return /failed to get vol|Storage volume not found|no storage vol with matching/i.test(this.stderr);
  }

  get notRunning(): boolean {
    return /domain is not running/i.test(this.stderr);
  }
}

export interface VirshOptions {
  uri: string;
  binary?: string;
  timeoutMs?: number;
}

export class Virsh {
  readonly uri: string;
  private readonly binary: string;
  private readonly timeoutMs: number;

  constructor(opts: VirshOptions) {
    this.uri = opts.uri;
    this.binary = opts.binary ?? 'virsh';
    this.timeoutMs = opts.timeoutMs ?? 60_000;
  }

  /** `virsh define` of an XML document; through a private temp file (Node's stdin pipes are sockets, which /dev/stdin cannot open). */
  async define(xml: string): Promise<void> {
    const dir = await mkdtemp(path.join(tmpdir(), 'peerpods-virsh-'));
    try {
      const file = path.join(dir, 'domain.xml');
      await writeFile(file, xml, { mode: 0o600 });
      await this.run(['define', file]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** Runs `virsh -q -c <uri> ...args`. */
  run(args: readonly string[]): Promise<string> {
    const argv = ['-q', '-c', this.uri, ...args];
    return new Promise((resolve, reject) => {
      const child = spawn(this.binary, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        stderr += `\n(timed out after ${this.timeoutMs} ms)`;
      }, this.timeoutMs);
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.once('close', (code) => {
        clearTimeout(timer);
        if (code === 0) resolve(stdout);
        else reject(new VirshError(args, code, stderr));
      });
    });
  }
}
