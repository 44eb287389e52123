// The node Deployments: one per workload-cluster node, `<role>-<nodeID>`, replicas 1, Recreate (a
// VM must stop before its replacement boots on the same disks), whose pod runs the VM (k8s-kvm)
// beside its endpoint updater, health checker and shutdown deferrer. Pure builders, exactly
// upstream's v3 shape (resource/deployment/{master,worker}_deployment.go) with two differences:
//   - the pod template also carries `release.giantswarm.io/version`, so pods can be selected by
//     release while a rollout is under way;
//   - no readiness gate on workers (v3.15's workload-cluster-node-ready): we follow the baseline
//     endpoint semantics, where a pod's readiness is its own.
// Master etcd volumes are numbered by the master's position in spec.cluster.masters, from 0, as
// upstream's key.VMNumber(i) over the 0-based range index: `k8s-master-vm0`, `pvc-master-etcd-<id>-0`.
import { Annotations, Labels, POD_WATCHER } from '../../api/labels.ts';
import type { NodeRole } from '../../api/labels.ts';
import type { KVMConfig } from '../../api/kvmconfig.ts';
import { componentVersion } from '../../api/release.ts';
import type { Release } from '../../api/release.ts';
import type { ResolvedKvmOptions } from '../../options.ts';
import * as key from '../../key.ts';
import type { ClusterNode } from '../../key.ts';
import type { Container, Deployment, EnvVar, HttpProbe, Volume } from './deployment-types.ts';

export type { Deployment } from './deployment-types.ts';

/** Long enough for the drain the preStop hooks wait for (the shutdown-deferrer defers until drained). */
export const POD_TERMINATION_GRACE_SECONDS = 300;
export const DISK_OS = '5G';
export const CLOUD_CONFIG_PATH = '/cloudconfig/user_data';
const FLATCAR_IMAGE_DIR = '/var/lib/flatcar-kvm-images';
const FLANNEL_DIR = '/run/flannel';
const PROBE_HOST = '127.0.0.1';
const HEALTH_PATH = '/healthz';
const CORE_COMPONENTS = ['calico', 'containerlinux', 'etcd', 'kubernetes'];

export function etcdPvcName(c: KVMConfig, masterPosition: number): string {
  return `pvc-master-etcd-${key.clusterId(c)}-${masterPosition}`;
}

export function etcdHostPath(c: KVMConfig, masterPosition: number): string {
  return `/home/core/volumes/${key.clusterId(c)}/k8s-master-vm${masterPosition}`;
}

export function shutdownDeferrerAddress(c: KVMConfig): string {
  return `http://${PROBE_HOST}:${key.shutdownDeferrerPort(c)}`;
}

/** What the preStop hooks poll: the shutdown-deferrer answers "defer" until the node is drained. */
export function shutdownDeferrerPollUrl(c: KVMConfig): string {
  return `${shutdownDeferrerAddress(c)}/v1/defer/`;
}

const fieldRef = (name: string, fieldPath: string): EnvVar => ({ name, valueFrom: { fieldRef: { fieldPath } } });

function probe(port: number, initialDelaySeconds: number): HttpProbe {
  return {
    httpGet: { path: HEALTH_PATH, port, host: PROBE_HOST },
    initialDelaySeconds,
    timeoutSeconds: 5,
    periodSeconds: 35,
    failureThreshold: 4,
    successThreshold: 1,
  };
}

function etcdVolume(c: KVMConfig, position: number): Volume {
  return c.spec.kvm.k8sKVM?.storageType === 'persistentVolume'
    ? { name: 'etcd-data', persistentVolumeClaim: { claimName: etcdPvcName(c, position) } }
    : { name: 'etcd-data', hostPath: { path: etcdHostPath(c, position) } };
}

/** The env of the VM container (k8s-kvm): sizes, versions, network and where the cloud config is. */
export function vmEnv(c: KVMConfig, n: ClusterNode, release: Release, options: ResolvedKvmOptions): EnvVar[] {
  const disks = key.vmDisks(n.role, n.vm);
  return [
    { name: 'CORES', value: String(n.vm.cpus) },
    { name: 'FLATCAR_VERSION', value: componentVersion(release, 'containerlinux') },
    { name: 'FLATCAR_CHANNEL', value: options.flatcarChannel },
    { name: 'DISK_DOCKER', value: disks.docker },
    { name: 'DISK_KUBELET', value: disks.kubelet },
    { name: 'DISK_OS', value: DISK_OS },
    { name: 'DNS_SERVERS', value: options.dnsServers.join(',') },
    { name: 'HOSTNAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
    { name: 'MEMORY', value: n.vm.memory },
    { name: 'NETWORK_BRIDGE_NAME', value: key.networkBridgeName(c) },
    { name: 'NETWORK_TAP_NAME', value: key.networkTapName(c) },
    { name: 'NTP_SERVERS', value: options.ntpServers.join(',') },
    { name: 'ROLE', value: n.role },
    { name: 'CLOUD_CONFIG_PATH', value: CLOUD_CONFIG_PATH },
  ];
}

function containers(c: KVMConfig, n: ClusterNode, release: Release, options: ResolvedKvmOptions): Container[] {
  const memory = `${key.podMemoryMegabytes(n.role, n.vm.memory)}M`;
  const cpu = String(n.vm.cpus);
  const healthPort = key.livenessPort(c);
  const privileged = { privileged: true };
  return [
    {
      name: 'k8s-endpoint-updater',
      image: options.images.endpointUpdater,
      imagePullPolicy: 'IfNotPresent',
      command: [
        '/opt/k8s-endpoint-updater',
        'update',
        `--provider.bridge.name=${key.networkBridgeName(c)}`,
        `--service.kubernetes.cluster.namespace=${key.clusterNamespace(c)}`,
        `--service.kubernetes.cluster.service=${n.role}`,
        '--service.kubernetes.inCluster=true',
      ],
      securityContext: privileged,
      env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } }],
    },
    {
      name: 'k8s-kvm',
      image: options.images.k8sKvm,
      imagePullPolicy: 'IfNotPresent',
      securityContext: privileged,
      args: [n.role],
      env: vmEnv(c, n, release, options),
      lifecycle: { preStop: { exec: { command: ['/qemu-shutdown', shutdownDeferrerPollUrl(c)] } } },
      livenessProbe: probe(healthPort, 500),
      readinessProbe: probe(healthPort, 100),
      resources: { requests: { cpu, memory }, limits: { cpu, memory } },
      volumeMounts: [
        { name: 'cloud-config', mountPath: '/cloudconfig/' },
        ...(n.role === 'master' ? [{ name: 'etcd-data', mountPath: '/etc/kubernetes/data/etcd/' }] : []),
        { name: 'images', mountPath: '/usr/code/images/' },
        { name: 'rootfs', mountPath: '/usr/code/rootfs/' },
      ],
    },
    {
      name: 'k8s-kvm-health',
      image: options.images.health,
      imagePullPolicy: 'Always',
      env: [
        ...(n.role === 'master' ? [{ name: 'CHECK_K8S_API', value: 'true' }] : []),
        { name: 'LISTEN_ADDRESS', value: `http://${PROBE_HOST}:${healthPort}` },
        { name: 'NETWORK_ENV_FILE_PATH', value: `${FLANNEL_DIR}/networks/${key.networkBridgeName(c)}.env` },
      ],
      securityContext: privileged,
      volumeMounts: [{ name: 'flannel', mountPath: FLANNEL_DIR }],
    },
    {
      name: 'shutdown-deferrer',
      image: options.images.shutdownDeferrer,
      imagePullPolicy: 'Always',
      args: ['daemon', `--server.listen.address=${shutdownDeferrerAddress(c)}`],
      env: [fieldRef('MY_POD_NAME', 'metadata.name'), fieldRef('MY_POD_NAMESPACE', 'metadata.namespace')],
      lifecycle: { preStop: { exec: { command: ['/pre-shutdown-hook', shutdownDeferrerPollUrl(c)] } } },
      livenessProbe: probe(key.shutdownDeferrerPort(c), 500),
    },
  ];
}

/** The Deployment of one node. */
export function nodeDeployment(
  c: KVMConfig,
  n: ClusterNode,
  release: Release,
  options: ResolvedKvmOptions,
): Deployment {
  const selector = { [Labels.app]: n.role, [Labels.legacyCluster]: key.clusterId(c), [Labels.node]: n.id };
  const { [Labels.managedBy]: _managedBy, ...podClusterLabels } = key.managedLabels(c);
  const componentAnnotations: Record<string, string> = {};
  for (const name of CORE_COMPONENTS) {
    const version = componentVersion(release, name);
    if (version) componentAnnotations[`${Annotations.componentVersionPrefix}${name}`] = version;
  }
  const volumes: Volume[] = [
    { name: 'cloud-config', configMap: { name: key.configMapName(n.role, c, n.id) } },
    ...(n.role === 'master' ? [etcdVolume(c, n.position)] : []),
    { name: 'images', hostPath: { path: FLATCAR_IMAGE_DIR } },
    { name: 'rootfs', emptyDir: {} },
    { name: 'flannel', hostPath: { path: FLANNEL_DIR } },
  ];
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: key.deploymentName(n.role, n.id),
      namespace: key.clusterNamespace(c),
      labels: { ...key.managedLabels(c), ...selector },
      annotations: {
        [Annotations.releaseVersion]: key.releaseVersionOf(c),
        [Annotations.versionBundleVersion]: options.version,
      },
    },
    spec: {
      replicas: 1,
      strategy: { type: 'Recreate' },
      selector: { matchLabels: selector },
      template: {
        metadata: {
          labels: {
            ...podClusterLabels,
            ...selector,
            [Labels.podWatcher]: POD_WATCHER,
            [Labels.operatorVersion]: options.version,
            [Labels.releaseVersion]: key.releaseVersionOf(c),
          },
          annotations: {
            [Annotations.apiEndpoint]: key.apiEndpoint(c),
            [Annotations.endpointIp]: '',
            [Annotations.endpointService]: n.role,
            [Annotations.drained]: 'False',
            [Annotations.versionBundle]: options.version,
            ...componentAnnotations,
          },
        },
        spec: {
          hostNetwork: true,
          nodeSelector: { [Labels.role]: n.role },
          serviceAccountName: key.clusterId(c),
          terminationGracePeriodSeconds: POD_TERMINATION_GRACE_SECONDS,
          // One node pod of a cluster per host: on the host network, its health and deferrer ports
          // (23000/47000 + VNI) and its bridge are per cluster, so two would collide.
          affinity: {
            podAntiAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: [
                {
                  labelSelector: {
                    matchExpressions: [{ key: Labels.app, operator: 'In', values: ['master', 'worker'] }],
                  },
                  topologyKey: 'kubernetes.io/hostname',
                  namespaces: [key.clusterNamespace(c)],
                },
              ],
            },
          },
          volumes,
          containers: containers(c, n, release, options),
        },
      },
    },
  };
}

/** Every node's Deployment, masters first. */
export function nodeDeployments(c: KVMConfig, release: Release, options: ResolvedKvmOptions): Deployment[] {
  return key.clusterNodes(c).map((n) => nodeDeployment(c, n, release, options));
}

export function roleOf(d: Deployment): NodeRole | undefined {
  const app = d.metadata.labels?.[Labels.app];
  return app === 'master' || app === 'worker' ? app : undefined;
}
