// The kubeconfig a started control plane hands to kubectl and client libraries.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { stringify } from 'yaml';

export interface KubeconfigParams {
  server: string;
  caPem: string;
  token: string;
  clusterName?: string;
  userName?: string;
  namespace?: string;
}

export function buildKubeconfig(p: KubeconfigParams): string {
  const cluster = p.clusterName ?? 'peerpods';
  const user = p.userName ?? 'peerpods-admin';
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: cluster,
        cluster: { server: p.server, 'certificate-authority-data': Buffer.from(p.caPem).toString('base64') },
      },
    ],
    users: [{ name: user, user: { token: p.token } }],
    contexts: [{ name: cluster, context: { cluster, user, namespace: p.namespace ?? 'default' } }],
    'current-context': cluster,
    preferences: {},
  });
}

/** Writes through a temporary file and a rename, so a reader never sees half a kubeconfig. */
export function writeFileAtomic(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, content, { mode: 0o600 });
  renameSync(tmp, path);
}
