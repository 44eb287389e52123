// Runs a script with the official Python client (Debian's python3-kubernetes, importable only by
// /usr/bin/python3) against a test cluster. The script gets the kubeconfig path as argv[1] and
// prints one JSON document on stdout.
import { execFile } from 'node:child_process';

export function runPython(
  kubeconfig: string,
  script: string,
  timeoutMs = 60_000,
): Promise<{ code: number; stdout: string; stderr: string; json: () => unknown }> {
  return new Promise((resolve) => {
    const child = execFile(
      '/usr/bin/python3',
      ['-c', script, kubeconfig],
      { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err
          ? typeof (err as { code?: unknown }).code === 'number'
            ? (err as { code: number }).code
            : 1
          : 0;
        resolve({ code, stdout, stderr, json: () => JSON.parse(stdout) });
      },
    );
    child.stdin?.end();
  });
}
