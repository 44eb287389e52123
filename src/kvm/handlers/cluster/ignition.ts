// The VM's first-boot configuration: a small Ignition-style (spec 3.x shaped) JSON document in
// place of upstream's k8scloudconfig templates. It carries what a VM needs to join its cluster and
// what the operator later checks on the workload node: the iSCSI initiator name (stable per node
// index), SSH users, DNS and NTP servers, API and etcd domains, component versions, and the
// kubelet's node labels and taints. Rendering is deterministic (sorted keys, no timestamps) so an
// unchanged spec renders byte-identical user data and the config map is not rewritten.
//
// Labels and taints are written the way a kubelet takes them (`--node-labels`, `--register-with-
// taints`) into /etc/kubernetes/kubelet.env; `nodeLabelsFromUserData`/`nodeTaintsFromUserData`
// read them back, which is what a simulated VM does to register its workload node.
import { Labels, NODE_KIND_LABEL_PREFIX, NODE_ROLE_LABEL_PREFIX } from '../../api/labels.ts';
import type { NodeRole } from '../../api/labels.ts';
import type { KVMConfig } from '../../api/kvmconfig.ts';
import { componentVersion } from '../../api/release.ts';
import type { Release } from '../../api/release.ts';
import type { ResolvedKvmOptions } from '../../options.ts';
import { apiDomain, apiSecurePort, clusterId, etcdDomain, releaseVersionOf } from '../../key.ts';

export interface NodeTaint {
  key: string;
  value?: string;
  effect: string;
}

interface IgnitionFile {
  path: string;
  mode: number;
  overwrite: boolean;
  contents: { source: string };
}

export interface IgnitionConfig {
  ignition: { version: string };
  passwd: { users: { name: string; sshAuthorizedKeys: string[]; groups: string[] }[] };
  storage: { files: IgnitionFile[] };
  systemd: { units: { name: string; enabled: boolean; contents?: string }[] };
}

export interface IgnitionParams {
  cluster: KVMConfig;
  role: NodeRole;
  nodeId: string;
  /** The node's entry in status.kvm.nodeIndexes. */
  nodeIndex: number;
  release: Release;
  options: Pick<ResolvedKvmOptions, 'version' | 'dnsServers' | 'ntpServers'>;
}

export const KUBELET_ENV_PATH = '/etc/kubernetes/kubelet.env';
export const CLUSTER_ENV_PATH = '/etc/kubernetes/cluster.env';
export const ISCSI_INITIATOR_PATH = '/etc/iscsi/initiatorname.iscsi';
export const ETCD_DATA_DIR = '/etc/kubernetes/data/etcd';

/** The iSCSI initiator name, stable for a node index so storage sessions survive VM replacement. */
export function iscsiInitiatorName(c: KVMConfig, role: NodeRole, index: number): string {
  return `iqn.2016-04.com.coreos.iscsi:giantswarm-${clusterId(c)}-${role}-${index}`;
}

/** `spec.cluster.kubernetes.kubelet.labels` ("a=b,c=d") as a map; entries without "=" get "". */
export function parseLabelList(list: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of (list ?? '').split(',')) {
    const e = entry.trim();
    if (!e) continue;
    const eq = e.indexOf('=');
    if (eq < 0) out[e] = '';
    else out[e.slice(0, eq).trim()] = e.slice(eq + 1).trim();
  }
  return out;
}

/** The labels a node registers with. The operator's own win over user-supplied kubelet labels. */
export function workloadNodeLabels(
  c: KVMConfig,
  role: NodeRole,
  options: Pick<ResolvedKvmOptions, 'version'>,
): Record<string, string> {
  return {
    ...parseLabelList(c.spec.cluster.kubernetes?.kubelet?.labels),
    [Labels.role]: role,
    [Labels.kubernetesRole]: role,
    [`${NODE_ROLE_LABEL_PREFIX}${role}`]: '',
    [`${NODE_KIND_LABEL_PREFIX}${role}`]: '',
    [Labels.operatorVersion]: options.version,
    [Labels.releaseVersion]: releaseVersionOf(c),
    [Labels.cluster]: clusterId(c),
  };
}

/** Masters keep workloads off with the usual master taint; workers register untainted. */
export function workloadNodeTaints(role: NodeRole): NodeTaint[] {
  return role === 'master' ? [{ key: Labels.nodeRoleMaster, effect: 'NoSchedule' }] : [];
}

function formatLabels(labels: Record<string, string>): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k]}`)
    .join(',');
}

function formatTaints(taints: NodeTaint[]): string {
  return taints.map((t) => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`).join(',');
}

function envFile(vars: Record<string, string | number>): string {
  return Object.entries(vars)
    .map(([k, v]) => `${k}=${v}\n`)
    .join('');
}

function file(path: string, text: string, mode = 0o644): IgnitionFile {
  return { path, mode, overwrite: true, contents: { source: `data:,${encodeURIComponent(text)}` } };
}

export function ignitionConfig(p: IgnitionParams): IgnitionConfig {
  const c = p.cluster;
  const k8s = componentVersion(p.release, 'kubernetes');
  const etcd = componentVersion(p.release, 'etcd');
  const files = [
    file(ISCSI_INITIATOR_PATH, `InitiatorName=${iscsiInitiatorName(c, p.role, p.nodeIndex)}\n`),
    file('/etc/systemd/resolved.conf.d/10-giantswarm.conf', `[Resolve]\nDNS=${p.options.dnsServers.join(' ')}\n`),
    file('/etc/systemd/timesyncd.conf.d/10-giantswarm.conf', `[Time]\nNTP=${p.options.ntpServers.join(' ')}\n`),
    file(
      CLUSTER_ENV_PATH,
      envFile({
        CLUSTER_ID: clusterId(c),
        NODE_ID: p.nodeId,
        NODE_ROLE: p.role,
        API_DOMAIN: apiDomain(c),
        API_SECURE_PORT: apiSecurePort(c),
        ETCD_DOMAIN: etcdDomain(c),
        RELEASE_VERSION: releaseVersionOf(c),
        KUBERNETES_VERSION: k8s,
        ETCD_VERSION: etcd,
        CALICO_VERSION: componentVersion(p.release, 'calico'),
        FLATCAR_VERSION: componentVersion(p.release, 'containerlinux'),
      }),
    ),
    file(
      KUBELET_ENV_PATH,
      envFile({
        KUBELET_NODE_LABELS: formatLabels(workloadNodeLabels(c, p.role, p.options)),
        KUBELET_REGISTER_WITH_TAINTS: formatTaints(workloadNodeTaints(p.role)),
      }),
    ),
  ];
  const units: IgnitionConfig['systemd']['units'] = [
    { name: 'iscsid.service', enabled: true },
    {
      name: 'kubelet.service',
      enabled: true,
      contents: [
        '[Unit]\nDescription=Kubernetes kubelet\nAfter=docker.service\n',
        `[Service]\nEnvironmentFile=${CLUSTER_ENV_PATH}\nEnvironmentFile=${KUBELET_ENV_PATH}\n`,
        `ExecStart=/usr/bin/docker run --net=host --privileged quay.io/giantswarm/hyperkube:v${k8s} kubelet`,
        ' --node-labels=${KUBELET_NODE_LABELS} --register-with-taints=${KUBELET_REGISTER_WITH_TAINTS}',
        ' --kubeconfig=/etc/kubernetes/kubeconfig/kubelet.yaml\nRestart=always\n',
        '[Install]\nWantedBy=multi-user.target\n',
      ].join(''),
    },
  ];
  if (p.role === 'master') {
    units.push({
      name: 'etcd3.service',
      enabled: true,
      contents:
        `[Unit]\nDescription=etcd ${etcd}\n[Service]\nExecStart=/usr/bin/docker run --net=host` +
        ` -v ${ETCD_DATA_DIR}:/var/lib/etcd quay.io/coreos/etcd:v${etcd} etcd --data-dir=/var/lib/etcd` +
        ` --advertise-client-urls=https://${etcdDomain(c)}:443\nRestart=always\n[Install]\nWantedBy=multi-user.target\n`,
    });
  }
  const users = (c.spec.cluster.kubernetes?.ssh?.userList ?? [])
    .filter((u) => u.name)
    .map((u) => ({
      name: u.name as string,
      sshAuthorizedKeys: u.publicKey ? [u.publicKey] : [],
      groups: ['sudo', 'docker'],
    }));
  return { ignition: { version: '3.2.0' }, passwd: { users }, storage: { files }, systemd: { units } };
}

/** The config map's `user_data`: base64 of the JSON document. */
export function renderUserData(p: IgnitionParams): string {
  return Buffer.from(JSON.stringify(ignitionConfig(p)), 'utf8').toString('base64');
}

/** Parses user data as stored (base64) or already decoded (JSON text). */
export function parseUserData(userData: string): IgnitionConfig {
  const text = userData.trimStart().startsWith('{') ? userData : Buffer.from(userData, 'base64').toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new Error(`user data is not an ignition JSON document: ${(e as Error).message}`);
  }
  const cfg = parsed as Partial<IgnitionConfig> | null;
  if (!cfg || typeof cfg !== 'object' || !Array.isArray(cfg.storage?.files))
    throw new Error('user data is not an ignition JSON document: no storage.files');
  return cfg as IgnitionConfig;
}

/** The text of a file in the config, or undefined when it has none at `path`. */
export function ignitionFile(cfg: IgnitionConfig, path: string): string | undefined {
  const source = cfg.storage.files.find((f) => f.path === path)?.contents?.source;
  if (source === undefined) return undefined;
  const base64 = /^data:[^,]*;base64,/.exec(source);
  if (base64) return Buffer.from(source.slice(base64[0].length), 'base64').toString('utf8');
  if (source.startsWith('data:')) return decodeURIComponent(source.slice(source.indexOf(',') + 1));
  throw new Error(`file ${path}: only data: URLs are supported, got ${source.slice(0, 30)}`);
}

function kubeletEnv(userData: string): Record<string, string> {
  const text = ignitionFile(parseUserData(userData), KUBELET_ENV_PATH);
  if (text === undefined) throw new Error(`user data has no ${KUBELET_ENV_PATH}`);
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) env[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return env;
}

/** The labels the VM's kubelet registers its node with. */
export function nodeLabelsFromUserData(userData: string): Record<string, string> {
  return parseLabelList(kubeletEnv(userData).KUBELET_NODE_LABELS);
}

/** The taints the VM's kubelet registers its node with (`key[=value]:Effect`, comma separated). */
export function nodeTaintsFromUserData(userData: string): NodeTaint[] {
  const list = kubeletEnv(userData).KUBELET_REGISTER_WITH_TAINTS ?? '';
  return list
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean)
    .map((t) => {
      const colon = t.lastIndexOf(':');
      const kv = colon < 0 ? t : t.slice(0, colon);
      const effect = colon < 0 ? '' : t.slice(colon + 1);
      const eq = kv.indexOf('=');
      return eq < 0 ? { key: kv, effect } : { key: kv.slice(0, eq), value: kv.slice(eq + 1), effect };
    });
}
