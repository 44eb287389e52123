// The objects a PeerPodConfig deploys, as pure builders. Names and shapes are upstream's
// (peerpodconfig-ctrl's DaemonSet, OSC's ppwebhook.go and the webhook chart) so existing RBAC,
// dashboards and docs keep working. Values are written the way the API server stores them
// (canonical quantities, explicit protocols), so the derivative compare sees no false drift.
import { createHash } from 'node:crypto';
import type { KubeObject } from '../../../runtime/index.ts';
import type { PeerPodConfig } from '../../api/peerpodconfig.ts';
import { DEFAULT_CLOUD_SECRET_NAME, DEFAULT_CONFIGMAP_NAME, DEFAULT_NODE_SELECTOR } from '../../api/peerpodconfig.ts';
import { MUTATE_POD_PATH } from '../../webhook/handler.ts';
import { WEBHOOK_SERVICE_ACCOUNT } from './options.ts';
import type { ResolvedOptions, ResolvedWebhookOptions } from './options.ts';

export const ADAPTOR_DAEMONSET = 'peerpodconfig-ctrl-caa-daemon';
export const WEBHOOK_DEPLOYMENT = 'peer-pods-webhook';
export const WEBHOOK_SERVICE = 'peer-pods-webhook-svc';
export const WEBHOOK_SECRET = 'peer-pods-webhook-svc-secret';
export const WEBHOOK_NAME = 'mwebhook.peerpods.io';
export const WEBHOOK_PORT = 9443;
export const WEBHOOK_CERT_DIR = '/tmp/k8s-webhook-server/serving-certs';
const WEBHOOK_PROBE_PORT = 8081;
/**
 * Readiness is checked every 2 s rather than kube's default 10 s: the first probe runs as the
 * process starts (before it listens), and a new pod should take work (a rollout move on) seconds
 * after it is ready, not at the next 10 s tick. /readyz is a cheap in-process check.
 */
const READINESS_PERIOD_SECONDS = 2;

export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY = 'peerpodconfig-controller';
/** On the cluster-scoped MutatingWebhookConfiguration, which cannot have a namespaced owner. */
export const OWNER_NAMESPACE_LABEL = 'peerpodconfig.confidentialcontainers.org/namespace';
export const OWNER_NAME_LABEL = 'peerpodconfig.confidentialcontainers.org/name';

/** One MutatingWebhookConfiguration per namespace, so two installs in two namespaces never collide. */
export function webhookConfigurationName(namespace: string): string {
  return `peer-pods-webhook-${namespace}`;
}

export function serviceDnsNames(namespace: string): string[] {
  const svc = WEBHOOK_SERVICE;
  return [`${svc}.${namespace}.svc`, `${svc}.${namespace}.svc.cluster.local`, `${svc}.${namespace}`, svc];
}

function meta(cfg: PeerPodConfig, name: string, labels: Record<string, string>): KubeObject['metadata'] {
  return { name, namespace: cfg.metadata.namespace, labels: { ...labels, [MANAGED_BY_LABEL]: MANAGED_BY } };
}

/** The adaptor's health port when the DaemonSet runs our own image (`peerpods run adaptor`). */
export const ADAPTOR_PROBE_PORT = 8082;

/**
 * A further provider's adaptors share each node's network with the default ones (hostNetwork), so
 * they are given a health port of their own, derived from their RuntimeClass (18100–18999): stable
 * across restarts and controller replicas, shown in the DaemonSet's args.
 */
export function adaptorProbePort(cfg: PeerPodConfig, opts: Pick<ResolvedOptions, 'runtimeClassName'>): number {
  const rc = cfg.spec.runtimeClassName;
  if (!rc || rc === opts.runtimeClassName) return ADAPTOR_PROBE_PORT;
  return 18100 + (createHash('sha256').update(rc).digest().readUInt32BE(0) % 900);
}

/**
 * Whether an image is this project's (`…/peerpods[:tag|@digest]`): its entrypoint is `peerpods`,
 * so the adaptor runs as `peerpods run adaptor` rather than upstream's entrypoint script.
 */
export function isPeerpodsImage(image: string): boolean {
  const repository = image.replace(/@.*$/, '').replace(/:[^/:]*$/, '');
  return repository === 'peerpods' || repository.endsWith('/peerpods');
}

/**
 * The adaptor DaemonSet of a config: upstream's name for the default RuntimeClass, suffixed with the
 * RuntimeClass for the others (one DaemonSet per provider).
 */
export function adaptorDaemonSetName(cfg: PeerPodConfig, opts: Pick<ResolvedOptions, 'runtimeClassName'>): string {
  const rc = cfg.spec.runtimeClassName;
  return !rc || rc === opts.runtimeClassName ? ADAPTOR_DAEMONSET : adaptorDaemonSetForRuntimeClass(rc);
}

/** The adaptor DaemonSet of a further provider's RuntimeClass. */
export function adaptorDaemonSetForRuntimeClass(runtimeClassName: string): string {
  return `${ADAPTOR_DAEMONSET}-${runtimeClassName}`;
}

/** Flags telling our adaptor what a config names beyond the defaults (none for today's single config). */
function bindingArgs(cfg: PeerPodConfig): string[] {
  const { runtimeClassName, cloudProvider, configMapName, cloudSecretName } = cfg.spec;
  return [
    ...(runtimeClassName ? [`--runtime-class=${runtimeClassName}`] : []),
    ...(cloudProvider ? [`--provider=${cloudProvider}`] : []),
    ...(configMapName && configMapName !== DEFAULT_CONFIGMAP_NAME ? [`--config-map=${configMapName}`] : []),
    ...(cloudSecretName && cloudSecretName !== DEFAULT_CLOUD_SECRET_NAME ? [`--secret=${cloudSecretName}`] : []),
  ];
}

export function adaptorDaemonSet(cfg: PeerPodConfig, opts: ResolvedOptions): KubeObject {
  const name = adaptorDaemonSetName(cfg, opts);
  const labels = { name };
  const secretVolume = (name: string, secretName: string) => ({
    name,
    secret: { secretName, defaultMode: 0o600, optional: true },
  });
  const fromField = (name: string, fieldPath: string) => ({ name, valueFrom: { fieldRef: { fieldPath } } });
  const port = adaptorProbePort(cfg, opts);
  const probe = (path: string) => ({ httpGet: { path, port, scheme: 'HTTP' } });
  // Upstream's image starts through its entrypoint script, configured by env alone; ours is the
  // `peerpods` CLI, told its node and namespace through the downward API and probed on its health port.
  const ours = isPeerpodsImage(opts.adaptorImage);
  const run = ours
    ? {
        imagePullPolicy: 'IfNotPresent',
        args: ['run', 'adaptor', `--health-probe-bind-address=:${port}`, ...bindingArgs(cfg)],
        env: [fromField('NODE_NAME', 'spec.nodeName'), fromField('PEERPODS_NAMESPACE', 'metadata.namespace')],
      }
    : {
        imagePullPolicy: 'Always',
        command: ['/usr/local/bin/entrypoint.sh'],
        // Upstream's adaptor is configured by env alone: the provider is all it can be told.
        ...(cfg.spec.cloudProvider ? { env: [{ name: 'CLOUD_PROVIDER', value: cfg.spec.cloudProvider }] } : {}),
      };
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: meta(cfg, name, labels),
    spec: {
      selector: { matchLabels: labels },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
      template: {
        metadata: { labels },
        spec: {
          // Its own account, bound by `peerpods deploy` to the adaptor's rules (adaptor/rbac.ts).
          serviceAccountName: opts.adaptorServiceAccountName,
          nodeSelector: cfg.spec.nodeSelector ?? { ...DEFAULT_NODE_SELECTOR },
          hostNetwork: true,
          containers: [
            {
              name: 'caa-pod',
              image: opts.adaptorImage,
              ...run,
              securityContext: { privileged: true, runAsUser: 0 },
              envFrom: [
                // Our adaptor runs providers that need no credentials (qemu, libvirt) without the Secret.
                {
                  secretRef: {
                    name: cfg.spec.cloudSecretName ?? DEFAULT_CLOUD_SECRET_NAME,
                    ...(ours ? { optional: true } : {}),
                  },
                },
                { configMapRef: { name: cfg.spec.configMapName ?? DEFAULT_CONFIGMAP_NAME } },
              ],
              ...(ours
                ? {
                    ports: [{ name: 'probes', containerPort: port, protocol: 'TCP' }],
                    readinessProbe: { ...probe('/readyz'), periodSeconds: READINESS_PERIOD_SECONDS },
                    livenessProbe: probe('/healthz'),
                  }
                : {}),
              volumeMounts: [
                { name: 'auth-json-volume', mountPath: '/root/containers/', readOnly: true },
                { name: 'ssh', mountPath: '/root/.ssh', readOnly: true },
                { name: 'pods-dir', mountPath: '/run/peerpod' },
                { name: 'netns', mountPath: '/run/netns', mountPropagation: 'HostToContainer' },
              ],
            },
          ],
          volumes: [
            secretVolume('auth-json-volume', 'auth-json-secret'),
            secretVolume('ssh', 'ssh-key-secret'),
            { name: 'pods-dir', hostPath: { path: '/run/peerpod' } },
            { name: 'netns', hostPath: { path: '/run/netns' } },
          ],
        },
      },
    },
  };
}

/**
 * `routes`: the other providers' RuntimeClass → resource bindings in this namespace (binding.ts),
 * passed as `--runtime-class-resource`; none for a single provider, so its Deployment is as it was.
 */
export function webhookDeployment(
  cfg: PeerPodConfig,
  opts: ResolvedOptions,
  w: ResolvedWebhookOptions,
  routes: ReadonlyArray<{ runtimeClassName: string; extendedResource: string }> = [],
): KubeObject {
  const labels = { app: WEBHOOK_DEPLOYMENT };
  const probe = (path: string) => ({ httpGet: { path, port: WEBHOOK_PROBE_PORT, scheme: 'HTTP' } });
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: meta(cfg, WEBHOOK_DEPLOYMENT, labels),
    spec: {
      replicas: w.replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          // The API server calls the webhook; it never calls the API server, so it holds no token.
          serviceAccountName: WEBHOOK_SERVICE_ACCOUNT,
          automountServiceAccountToken: false,
          containers: [
            {
              name: 'webhook',
              image: w.image,
              args: [
                'run',
                'webhook',
                // In a pod the API server and the kubelet reach it from outside: bind every interface.
                '--host=0.0.0.0',
                `--port=${WEBHOOK_PORT}`,
                `--cert-dir=${WEBHOOK_CERT_DIR}`,
                `--health-probe-bind-address=:${WEBHOOK_PROBE_PORT}`,
                `--drop-resources=${w.dropResources}`,
                // Only when set, so the Deployment of a config without them stays as it was.
                ...(cfg.spec.maxVcpus !== undefined ? [`--max-vcpus=${cfg.spec.maxVcpus}`] : []),
                ...(cfg.spec.maxMemory !== undefined ? [`--max-memory=${cfg.spec.maxMemory}`] : []),
                ...routes.map((r) => `--runtime-class-resource=${r.runtimeClassName}=${r.extendedResource}`),
              ],
              env: [
                { name: 'TARGET_RUNTIMECLASS', value: w.targetRuntimeClass },
                { name: 'POD_VM_EXTENDED_RESOURCE', value: opts.extendedResource },
              ],
              ports: [{ name: 'webhook', containerPort: WEBHOOK_PORT, protocol: 'TCP' }],
              readinessProbe: { ...probe('/readyz'), periodSeconds: READINESS_PERIOD_SECONDS },
              livenessProbe: probe('/healthz'),
              securityContext: { allowPrivilegeEscalation: false, runAsNonRoot: true },
              volumeMounts: [{ name: 'cert', mountPath: WEBHOOK_CERT_DIR, readOnly: true }],
            },
          ],
          volumes: [{ name: 'cert', secret: { secretName: WEBHOOK_SECRET } }],
        },
      },
    },
  };
}

export function webhookService(cfg: PeerPodConfig): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(cfg, WEBHOOK_SERVICE, { app: WEBHOOK_DEPLOYMENT }),
    spec: {
      selector: { app: WEBHOOK_DEPLOYMENT },
      ports: [{ name: 'webhook', port: 443, targetPort: WEBHOOK_PORT, protocol: 'TCP' }],
    },
  };
}

export function mutatingWebhookConfiguration(
  cfg: PeerPodConfig,
  w: ResolvedWebhookOptions,
  caBundle: string,
): KubeObject {
  const ns = cfg.metadata.namespace as string;
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: {
      name: webhookConfigurationName(ns),
      labels: {
        [MANAGED_BY_LABEL]: MANAGED_BY,
        [OWNER_NAMESPACE_LABEL]: ns,
        [OWNER_NAME_LABEL]: cfg.metadata.name as string,
      },
    },
    webhooks: [
      {
        name: WEBHOOK_NAME,
        admissionReviewVersions: ['v1'],
        clientConfig: {
          service: { name: WEBHOOK_SERVICE, namespace: ns, path: MUTATE_POD_PATH, port: 443 },
          caBundle,
        },
        rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'], scope: '*' }],
        failurePolicy: w.failurePolicy,
        reinvocationPolicy: 'IfNeeded',
        sideEffects: 'None',
        matchPolicy: 'Equivalent',
        timeoutSeconds: 10,
        namespaceSelector: {
          matchExpressions: [
            {
              key: 'kubernetes.io/metadata.name',
              operator: 'NotIn',
              values: [...new Set([ns, ...w.excludedNamespaces])],
            },
          ],
        },
      },
    ],
  };
}
