// How a workload cluster's credentials are found, and turned into a connection. Two forms:
//   - a kubeconfig Secret: labelled giantswarm.io/cluster=<id>, key `kubeconfig` (or `value`, the
//     Cluster API convention);
//   - a certificate Secret, upstream's: labelled giantswarm.io/certificate=api and
//     giantswarm.io/cluster=<id>, keys `ca`, `crt`, `key`; the server is
//     https://<spec.cluster.kubernetes.api.domain>[:securePort].
// The kubeconfig form wins when both exist.
import type { ConnectionConfig, KubeObject } from '../../runtime/index.ts';
import { configFromKubeconfigString, noAuth } from '../../runtime/index.ts';
import { Labels } from '../api/labels.ts';
import type { KVMConfig } from '../api/kvmconfig.ts';
import { apiDomain, apiSecurePort } from '../key.ts';

export interface SecretObject extends KubeObject {
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

/** Credentials are missing or unusable; retrying will not help until a Secret changes. */
export class WorkloadCredentialsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkloadCredentialsError';
  }
}

function value(secret: SecretObject, key: string): string | undefined {
  const b64 = secret.data?.[key];
  if (b64 !== undefined) return Buffer.from(b64, 'base64').toString('utf8');
  return secret.stringData?.[key];
}

export function isKubeconfigSecret(secret: SecretObject): boolean {
  return value(secret, 'kubeconfig') !== undefined || value(secret, 'value') !== undefined;
}

export function isCertificateSecret(secret: SecretObject): boolean {
  return secret.metadata.labels?.[Labels.certificate] === 'api';
}

/** Picks the Secret to use among those labelled for the cluster: kubeconfig first, then certificates. */
export function pickSecret(secrets: SecretObject[]): SecretObject | undefined {
  const sorted = [...secrets].sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  return sorted.find(isKubeconfigSecret) ?? sorted.find(isCertificateSecret);
}

export function connectionFromSecret(cluster: KVMConfig, secret: SecretObject): ConnectionConfig {
  const where = `Secret ${secret.metadata.namespace}/${secret.metadata.name}`;
  const kubeconfig = value(secret, 'kubeconfig') ?? value(secret, 'value');
  if (kubeconfig !== undefined) {
    try {
      return configFromKubeconfigString(kubeconfig);
    } catch (e) {
      throw new WorkloadCredentialsError(`${where}: invalid kubeconfig: ${(e as Error).message}`);
    }
  }
  const ca = value(secret, 'ca');
  const crt = value(secret, 'crt');
  const key = value(secret, 'key');
  const missing = [!ca && 'ca', !crt && 'crt', !key && 'key'].filter(Boolean);
  if (missing.length) throw new WorkloadCredentialsError(`${where}: missing key(s) ${missing.join(', ')}`);
  const domain = apiDomain(cluster);
  if (!domain) throw new WorkloadCredentialsError('spec.cluster.kubernetes.api.domain is empty');
  const port = apiSecurePort(cluster);
  return {
    server: `https://${domain}${port === 443 ? '' : `:${port}`}`,
    tls: { ca: Buffer.from(ca!), cert: Buffer.from(crt!), key: Buffer.from(key!), rejectUnauthorized: true },
    auth: noAuth,
    namespace: 'default',
    source: 'kubeconfig',
  };
}
