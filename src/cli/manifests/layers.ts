// The deploy manifests, generated from code (the CRD schema, the controller's RBAC rules, its
// options): kustomize layers laid out as kubebuilder's `config/`. Names are written out in full
// (no namePrefix/namespace transformers), so `kubectl apply -k config/default` and
// `peerpods deploy` create exactly the same objects.
import { stringify } from 'yaml';
import type { KubeObject, PolicyRule } from '../../runtime/index.ts';
import {
  ADAPTOR_SERVICE_ACCOUNT,
  API_VERSION,
  DEFAULT_CONFIGMAP,
  DEFAULT_SECRET,
  LEADER_ELECTION_ID,
  WEBHOOK_SERVICE_ACCOUNT,
  adaptor,
  allCrds,
  peerPodConfigProviderRules,
  peerPodConfigRbacRules,
  peerPodProviderRules,
  peerPodRbacRules,
} from '../../peerpod/index.ts';
import { PEERPODCONFIG_LEADER_ELECTION_ID } from '../options.ts';
import { DEFAULT_IMAGE, DEFAULT_NAMESPACE } from './defaults.ts';

export { DEFAULT_IMAGE, DEFAULT_NAMESPACE } from './defaults.ts';
import { kvmLayers } from './kvm.ts';
import { PROBE_PORT, READINESS_PERIOD_SECONDS, operatorDeployment } from './deployment.ts';
import { componentRbac, providerRbac } from './rbac.ts';
import type { Component } from './rbac.ts';

export interface ManifestOptions {
  /** Namespace of the operator (its $PEERPODS_NAMESPACE). Default peerpods-system. */
  namespace?: string;
  image?: string;
  /** Flags appended to the PeerPod controller's container args (`peerpods deploy --peerpod-controller-arg`). */
  peerPodControllerArgs?: string[];
  /** Further providers' PeerPodConfigs, each given its own Roles (`--extra-provider`). */
  extraProviders?: ExtraProvider[];
}

/** A further provider's PeerPodConfig: what the Roles it needs name. */
export interface ExtraProvider {
  /** Its `spec.runtimeClassName` (the adaptor DaemonSet is named after it). */
  runtimeClassName: string;
  /** Its `spec.configMapName` and `spec.cloudSecretName`; default peer-pods-cm, peer-pods-secret. */
  configMap?: string;
  secret?: string;
}

/** Component names: each is its Deployment's, its ServiceAccount's and its roles' name. */
const NAME = 'peerpod-controller';
const PPC_NAME = 'peerpodconfig-controller';
/** The PeerPod controller's Deployment (`kubectl logs deploy/…`). */
export const PEERPOD_CONTROLLER_DEPLOYMENT = NAME;
const LABELS = { 'app.kubernetes.io/name': 'peerpods', 'app.kubernetes.io/managed-by': 'peerpods' };
const SELECTOR = { 'control-plane': 'peerpod-controller' };

export interface Layers {
  crd: KubeObject[];
  rbac: KubeObject[];
  manager: KubeObject[];
  samples: KubeObject[];
}

function meta(name: string, namespace?: string): KubeObject['metadata'] {
  return { name, ...(namespace ? { namespace } : {}), labels: { ...LABELS } };
}

/**
 * One identity per component, each with only the rules its code needs (the rule generators say
 * why each rule exists): the two controllers, the webhook (no API access, so no token) and the
 * adaptor, whose DaemonSet the PeerPodConfig controller creates with this ServiceAccount.
 */
function components(ns: string): Component[] {
  const settings = { configMap: DEFAULT_CONFIGMAP, secret: DEFAULT_SECRET };
  return [
    { name: NAME, rules: peerPodRbacRules({ ...settings, leaseName: LEADER_ELECTION_ID }) },
    {
      name: PPC_NAME,
      rules: peerPodConfigRbacRules({ namespace: ns, leaseName: PEERPODCONFIG_LEADER_ELECTION_ID }),
    },
    { name: WEBHOOK_SERVICE_ACCOUNT, rules: { cluster: [], namespaced: [] }, needsToken: false },
    { name: ADAPTOR_SERVICE_ACCOUNT, rules: adaptor.adaptorRbacRules(settings) },
  ];
}

/**
 * One further provider's Roles: the PeerPodConfig controller's on its adaptor DaemonSet, and, when
 * its config names its own ConfigMap or Secret, the reads of them by the PeerPodConfig controller
 * (capacity), the PeerPod controller and the adaptor (the default objects are in their own Roles already).
 */
function extraProviderRbac(ns: string, p: ExtraProvider): KubeObject[] {
  const names = { configMap: p.configMap ?? DEFAULT_CONFIGMAP, secret: p.secret ?? DEFAULT_SECRET };
  const own = (rules: PolicyRule[]) =>
    rules.filter((r) => !(r.resourceNames ?? []).every((n) => n === DEFAULT_CONFIGMAP || n === DEFAULT_SECRET));
  const rc = p.runtimeClassName;
  return [
    ...providerRbac(PPC_NAME, rc, own(peerPodConfigProviderRules(rc, names)), ns, LABELS),
    ...providerRbac(NAME, rc, own(peerPodProviderRules(names)), ns, LABELS),
    ...providerRbac(ADAPTOR_SERVICE_ACCOUNT, rc, own(adaptor.adaptorProviderRules(names)), ns, LABELS),
  ];
}

export function buildLayers(opts: ManifestOptions = {}): Layers {
  const ns = opts.namespace ?? DEFAULT_NAMESPACE;
  const rbac = [
    ...components(ns).flatMap((c) => componentRbac(c, ns, LABELS)),
    ...(opts.extraProviders ?? []).flatMap((p) => extraProviderRbac(ns, p)),
  ];
  const manager: KubeObject[] = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: meta(ns) },
    deployment(ns, opts.image ?? DEFAULT_IMAGE, opts.peerPodControllerArgs ?? []),
    peerPodConfigDeployment(ns, opts.image ?? DEFAULT_IMAGE),
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta(`${NAME}-metrics`, ns),
      spec: {
        selector: SELECTOR,
        ports: [{ name: 'http-metrics', port: PROBE_PORT, targetPort: PROBE_PORT, protocol: 'TCP' }],
      },
    },
  ];
  const samples: KubeObject[] = [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: meta(DEFAULT_CONFIGMAP, ns),
      data: { CLOUD_PROVIDER: 'libvirt', LIBVIRT_URI: 'qemu+ssh://root@192.168.122.1/system?no_verify=1' },
    },
    {
      apiVersion: API_VERSION,
      kind: 'PeerPod',
      metadata: { name: 'peerpod-sample', namespace: 'default' },
      spec: { cloudProvider: 'libvirt', instanceID: '96a46f92-0000-4000-8000-000000000000' },
    },
  ];
  const kvm = kvmLayers(ns, opts.image ?? DEFAULT_IMAGE, LABELS);
  return {
    crd: [...allCrds(), ...kvm.crd],
    rbac: [...rbac, ...kvm.rbac],
    manager: [...manager, ...kvm.manager],
    samples: [...samples, ...kvm.samples],
  };
}

function deployment(ns: string, image: string, extraArgs: string[]): KubeObject {
  const probe = (path: string, initialDelaySeconds: number, periodSeconds: number) => ({
    httpGet: { path, port: PROBE_PORT },
    ...(initialDelaySeconds > 0 ? { initialDelaySeconds } : {}),
    periodSeconds,
  });
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { ...meta(NAME, ns), labels: { ...LABELS, ...SELECTOR } },
    spec: {
      // One active replica at a time is guaranteed by the Lease; more replicas are hot standbys.
      replicas: 1,
      selector: { matchLabels: SELECTOR },
      template: {
        metadata: { labels: SELECTOR, annotations: { 'kubectl.kubernetes.io/default-container': 'manager' } },
        spec: {
          serviceAccountName: NAME,
          // In-flight deletes get the manager's 30 s graceful shutdown before the kubelet kills us.
          terminationGracePeriodSeconds: 40,
          securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
          containers: [
            {
              name: 'manager',
              image,
              args: [
                'run',
                'peerpod-controller',
                '--leader-elect',
                `--health-probe-bind-address=:${PROBE_PORT}`,
                ...extraArgs,
              ],
              env: [
                { name: 'PEERPODS_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
                { name: 'PEERPODS_STATE_DIR', value: '/tmp/peerpods' },
              ],
              ports: [{ name: 'probes', containerPort: PROBE_PORT, protocol: 'TCP' }],
              livenessProbe: probe('/healthz', 15, 10),
              readinessProbe: probe('/readyz', 0, READINESS_PERIOD_SECONDS),
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ['ALL'] },
              },
              resources: { requests: { cpu: '10m', memory: '96Mi' }, limits: { memory: '512Mi' } },
              volumeMounts: [
                // libvirt over qemu+ssh, as upstream: the key comes from an optional secret.
                { name: 'ssh', mountPath: '/root/.ssh', readOnly: true },
                { name: 'tmp', mountPath: '/tmp' },
              ],
            },
          ],
          volumes: [
            { name: 'ssh', secret: { secretName: 'ssh-key-secret', optional: true, defaultMode: 0o600 } },
            { name: 'tmp', emptyDir: {} },
          ],
        },
      },
    },
  };
}

/** `run peerpodconfig-controller`: cluster-scoped work (nodes, webhook config), so one leader-elected replica. */
function peerPodConfigDeployment(ns: string, image: string): KubeObject {
  return operatorDeployment({
    name: PPC_NAME,
    namespace: ns,
    image,
    serviceAccountName: PPC_NAME,
    labels: LABELS,
    selector: { 'control-plane': 'peerpodconfig-controller' },
    operator: 'peerpodconfig-controller',
    // The adaptors and the webhook it deploys are this release's too.
    extraArgs: [`--adaptor-image=${image}`, `--webhook-image=${image}`],
    resources: { requests: { cpu: '10m', memory: '64Mi' }, limits: { memory: '256Mi' } },
  });
}

export interface ManifestFile {
  /** Relative to the output directory (config/). */
  path: string;
  content: string;
}

const HEADER = '# Generated by `peerpods manifests`; do not edit.\n';

function yamlDocs(objects: KubeObject[]): string {
  return HEADER + objects.map((o) => stringify(o, { lineWidth: 0 })).join('---\n');
}

function kustomization(resources: string[], extra: Record<string, unknown> = {}): string {
  return (
    HEADER + stringify({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', ...extra, resources })
  );
}

function fileName(o: KubeObject): string {
  return `${o.kind?.toLowerCase()}_${o.metadata.name}.yaml`;
}

/** RBAC names repeat across namespaces (a component's Roles): one outside the operator's is `kind_namespace_name.yaml`. */
function rbacFileNamer(ns: string): (o: KubeObject) => string {
  return (o) => {
    const at = o.metadata.namespace && o.metadata.namespace !== ns ? `${o.metadata.namespace}_` : '';
    return `${o.kind?.toLowerCase()}_${at}${o.metadata.name}.yaml`;
  };
}

/** Every file of config/, one object per file, with a kustomization.yaml per layer. */
export function buildFiles(opts: ManifestOptions = {}): ManifestFile[] {
  const layers = buildLayers(opts);
  const files: ManifestFile[] = [];
  const layer = (dir: string, objects: KubeObject[], name: (o: KubeObject) => string = fileName) => {
    const names = objects.map(name);
    objects.forEach((o, i) => files.push({ path: `${dir}/${names[i]}`, content: yamlDocs([o]) }));
    files.push({ path: `${dir}/kustomization.yaml`, content: kustomization(names) });
  };
  const crdName = (o: KubeObject) => {
    const spec = o.spec as { group: string; names: { plural: string } };
    return `bases/${spec.group}_${spec.names.plural}.yaml`;
  };
  layer('crd', layers.crd, crdName);
  layer('rbac', layers.rbac, rbacFileNamer(opts.namespace ?? DEFAULT_NAMESPACE));
  layer('manager', layers.manager);
  layer('samples', layers.samples);
  files.push({ path: 'default/kustomization.yaml', content: kustomization(['../crd', '../rbac', '../manager']) });
  return files;
}

/** The objects `peerpods deploy` applies: config/default (CRDs, RBAC, manager). */
export function deployObjects(opts: ManifestOptions = {}): KubeObject[] {
  const l = buildLayers(opts);
  return [...l.crd, ...l.rbac, ...l.manager];
}

export { LEADER_ELECTION_ID };
