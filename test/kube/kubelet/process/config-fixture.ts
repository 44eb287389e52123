// A control plane with one simulated node and an ApiContainerConfigSource over its internals,
// for the container-configuration tests. Pods are built in memory (never stored), so no kubelet
// runs them; the objects they reference are created through the API server's store.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';
import { internalContext } from '../../../../src/kube/registry/context.ts';
import { ApiContainerConfigSource } from '../../../../src/kube/kubelet/process/config-source.ts';
import { startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { waitFor } from '../../../helpers/wait.ts';

export const API_SERVER = { host: '127.0.0.1', port: 6443 };

/** The claims of a service-account JWT (its middle part). */
export function jwtClaims(token: string): JsonObject {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as JsonObject;
}

export interface ConfigFixture {
  cp: TestCluster;
  source: ApiContainerConfigSource;
  stateDir: string;
  create(resource: string, namespace: string | undefined, body: JsonObject): Promise<JsonObject>;
  /** A fresh pod directory. */
  podDir(): string;
  stop(): Promise<void>;
}

export async function startConfigFixture(namespace: string): Promise<ConfigFixture> {
  const cp = await startTestCluster({ nodes: 1 });
  const stateDir = mkdtempSync(join(tmpdir(), 'peerpods-config-'));
  const source = new ApiContainerConfigSource(cp.internals, {
    apiServer: () => API_SERVER,
    podTokens: cp.internals.podTokens,
    caPem: () => cp.caPem,
    stateDir,
  });
  const create = (resource: string, ns: string | undefined, body: JsonObject) => {
    const def = cp.internals.catalog.lookup('', 'v1', resource)!;
    return cp.internals.store.create(def, ns, body, internalContext('test'));
  };
  await create('namespaces', undefined, { metadata: { name: namespace } });
  // Pods' tokens are issued for their ServiceAccount, which the controller creates.
  const saDef = cp.internals.catalog.lookup('', 'v1', 'serviceaccounts')!;
  await waitFor(() => !!cp.internals.store.getStored(saDef, namespace, 'default'), 'ServiceAccount default');
  let pods = 0;
  return {
    cp,
    source,
    stateDir,
    create,
    podDir: () => join(stateDir, 'pods', String(++pods)),
    async stop() {
      source.stop();
      await cp.stop();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/** A pod bound to node-1 with a pod IP, as the kubelet sees it when it configures containers. */
export function podOf(namespace: string, spec: JsonObject, meta: JsonObject = {}): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace, uid: randomUUID(), ...meta },
    spec: { nodeName: 'node-1', serviceAccountName: 'default', ...spec },
    status: {
      hostIP: '127.0.0.1',
      hostIPs: [{ ip: '127.0.0.1' }],
      podIP: '127.244.1.5',
      podIPs: [{ ip: '127.244.1.5' }],
    },
  };
}

export function containerOf(pod: JsonObject, index = 0): JsonObject {
  return ((pod.spec as JsonObject).containers as JsonObject[])[index];
}
