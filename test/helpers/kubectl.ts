// Runs the real kubectl binaries on this machine against a test cluster.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `kubectl` (the dispatcher) or a pinned version such as `1.27`. */
export function kubectlPath(version?: string): string {
  if (!version) return 'kubectl';
  let real = '/usr/bin/kubectl';
  try {
    real = join(dirname('/usr/bin/kubectl'), readlinkSync('/usr/bin/kubectl'));
  } catch {
    // not a link
  }
  const candidate = join(dirname(real), `kubectl.${version}`);
  return existsSync(candidate) ? candidate : `kubectl.${version}`;
}

export function kubectl(
  kubeconfig: string,
  args: string[],
  opts: { version?: string; input?: string; timeoutMs?: number } = {},
): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = execFile(
      kubectlPath(opts.version),
      ['--kubeconfig', kubeconfig, ...args],
      {
        timeout: opts.timeoutMs ?? 60_000,
        env: { ...process.env, KUBECONFIG: kubeconfig, HOME: process.env.HOME ?? '/root' },
        maxBuffer: 32 * 1024 * 1024,
      },
      (err, stdout, stderr) => {
        const code = err
          ? typeof (err as { code?: unknown }).code === 'number'
            ? (err as { code: number }).code
            : 1
          : 0;
        resolve({ code, stdout, stderr });
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

/** Starts a long-running kubectl (e.g. `get -w`) and collects its output. */
export function kubectlStream(
  kubeconfig: string,
  args: string[],
  version?: string,
): { child: ChildProcess; output: () => string; stop: () => void } {
  const child = spawn(kubectlPath(version), ['--kubeconfig', kubeconfig, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return { child, output: () => out, stop: () => child.kill('SIGTERM') };
}
