// The service-account directory every container gets unless it opts out. In kube the
// ServiceAccount admission plugin adds it to the pod as the `kube-api-access-<random>` projected
// volume (plugin/pkg/admission/serviceaccount/admission.go); the embedded API server has no such
// plugin, so the kubelet adds the same volume here, under a name no user volume can have (not a
// DNS label), and mounts it read-only in each container that has nothing at that path.
import type { JsonObject } from '../../../../apimachinery/meta/index.ts';
import type { ObjectReader } from '../objects.ts';

export const SERVICE_ACCOUNT_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
export const SERVICE_ACCOUNT_VOLUME = '_kube-api-access';

/** The projected source admission writes: token, the cluster CA and the namespace. */
export const SERVICE_ACCOUNT_SOURCE: JsonObject = {
  defaultMode: 0o644,
  sources: [
    { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
    { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
    {
      downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] },
    },
  ],
};

/** shouldAutomount: the pod's field wins; otherwise its ServiceAccount's (default true). */
export function automountsServiceAccount(pod: JsonObject, reader: ObjectReader): boolean {
  const spec = (pod.spec ?? {}) as JsonObject;
  if (typeof spec.automountServiceAccountToken === 'boolean') return spec.automountServiceAccountToken;
  const namespace = String((pod.metadata as JsonObject | undefined)?.namespace ?? '');
  const name =
    typeof spec.serviceAccountName === 'string' && spec.serviceAccountName ? spec.serviceAccountName : 'default';
  return reader.get('serviceaccounts', namespace, name)?.automountServiceAccountToken !== false;
}

export function mountsServiceAccountPath(container: JsonObject): boolean {
  return ((container.volumeMounts ?? []) as JsonObject[]).some(
    (m) => String(m.mountPath ?? '').replace(/\/+$/, '') === SERVICE_ACCOUNT_MOUNT_PATH,
  );
}
