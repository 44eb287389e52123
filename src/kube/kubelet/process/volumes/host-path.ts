// hostPath volumes on a simulated node: the node's filesystem is `<stateDir>/nodes/<node>/rootfs`,
// never this machine's real paths. Types are checked as pkg/volume/hostpath's checkType does;
// the `…OrCreate` types and the empty type create what is missing (for the empty type the
// container runtime would, binding a missing directory).
import { closeSync, mkdirSync, openSync, statSync, type Stats } from 'node:fs';
import { dirname, join } from 'node:path';
import { ContainerConfigError } from '../container-config.ts';

export function nodeRootfs(stateDir: string, nodeName: string): string {
  return join(stateDir, 'nodes', nodeName, 'rootfs');
}

function statOf(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** The directory or file backing `spec.path` on the node; throws when its type check fails. */
export function setUpHostPath(source: { path?: unknown; type?: unknown }, rootfs: string): string {
  const path = String(source.path ?? '');
  const type = typeof source.type === 'string' ? source.type : '';
  const real = join(rootfs, path);
  const st = statOf(real);
  const fail = (what: string): never => {
    throw new ContainerConfigError(`hostPath type check failed: ${path} is not ${what}`);
  };
  switch (type) {
    case '':
    case 'DirectoryOrCreate':
      if (!st) mkdirSync(real, { recursive: true, mode: 0o755 });
      else if (type === 'DirectoryOrCreate' && !st.isDirectory()) fail('a directory');
      break;
    case 'Directory':
      if (!st?.isDirectory()) fail('a directory');
      break;
    case 'FileOrCreate':
      if (!st) {
        mkdirSync(dirname(real), { recursive: true, mode: 0o755 });
        closeSync(openSync(real, 'a', 0o644));
      } else if (!st.isFile()) fail('a file');
      break;
    case 'File':
      if (!st?.isFile()) fail('a file');
      break;
    case 'Socket':
      if (!st?.isSocket()) fail('a socket file');
      break;
    case 'CharDevice':
      if (!st?.isCharacterDevice()) fail('a character device');
      break;
    case 'BlockDevice':
      if (!st?.isBlockDevice()) fail('a block device');
      break;
    default:
      throw new ContainerConfigError(`invalid HostPathType ${type}`);
  }
  return real;
}
