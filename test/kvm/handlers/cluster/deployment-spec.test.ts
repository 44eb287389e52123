// Table tests of the node deployment builder: every env var, the memory formula, disks, ports
// from the VNI, and the etcd volume for both storage types.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KVMConfig, KVMNodeSpec } from '../../../../src/kvm/api/index.ts';
import { clusterNodes } from '../../../../src/kvm/key.ts';
import { resolveKvmOptions } from '../../../../src/kvm/options.ts';
import { nodeDeployment, nodeDeployments } from '../../../../src/kvm/handlers/cluster/deployment-spec.ts';
import type { Container, Deployment, EnvVar } from '../../../../src/kvm/handlers/cluster/deployment-types.ts';
import { OPERATOR_VERSION, RELEASE_VERSION, sampleKvmConfig, sampleRelease } from '../../helpers.ts';

const options = resolveKvmOptions({ version: OPERATOR_VERSION });
const release = sampleRelease();

function clusterWith(
  opts: { masters?: number; workers?: number; vm?: Partial<KVMNodeSpec>; vni?: number; storage?: string } = {},
): KVMConfig {
  const c = sampleKvmConfig({ masters: opts.masters ?? 1, workers: opts.workers ?? 1 });
  if (opts.vm) {
    c.spec.kvm.masters = c.spec.kvm.masters?.map(() => ({ cpus: 2, memory: '4G', ...opts.vm }) as KVMNodeSpec);
    c.spec.kvm.workers = c.spec.kvm.workers?.map(() => ({ cpus: 2, memory: '4G', ...opts.vm }) as KVMNodeSpec);
  }
  if (opts.vni !== undefined) c.spec.kvm.network = { flannel: { vni: opts.vni } };
  if (opts.storage) c.spec.kvm.k8sKVM = { storageType: opts.storage as 'hostPath' | 'persistentVolume' };
  return c;
}

function deploymentOf(c: KVMConfig, name: string): Deployment {
  const d = nodeDeployments(c, release, options).find((x) => x.metadata.name === name);
  assert.ok(d, `deployment ${name} built`);
  return d;
}

function container(d: Deployment, name: string): Container {
  const found = d.spec.template.spec.containers.find((x) => x.name === name);
  assert.ok(found, `container ${name}`);
  return found;
}

function env(d: Deployment, name: string): EnvVar | undefined {
  return container(d, 'k8s-kvm').env?.find((e) => e.name === name);
}

describe('node deployment: k8s-kvm env', () => {
  const worker = deploymentOf(clusterWith(), 'worker-w1');
  const cases: { name: string; want: EnvVar }[] = [
    { name: 'CORES', want: { name: 'CORES', value: '2' } },
    { name: 'MEMORY', want: { name: 'MEMORY', value: '4G' } },
    { name: 'ROLE', want: { name: 'ROLE', value: 'worker' } },
    { name: 'FLATCAR_VERSION', want: { name: 'FLATCAR_VERSION', value: '2605.12.0' } },
    { name: 'FLATCAR_CHANNEL', want: { name: 'FLATCAR_CHANNEL', value: 'stable' } },
    { name: 'DISK_DOCKER', want: { name: 'DISK_DOCKER', value: '30G' } },
    { name: 'DISK_KUBELET', want: { name: 'DISK_KUBELET', value: '30G' } },
    { name: 'DISK_OS', want: { name: 'DISK_OS', value: '5G' } },
    { name: 'DNS_SERVERS', want: { name: 'DNS_SERVERS', value: '1.1.1.1,8.8.8.8' } },
    { name: 'NTP_SERVERS', want: { name: 'NTP_SERVERS', value: '0.flatcar.pool.ntp.org,1.flatcar.pool.ntp.org' } },
    {
      name: 'HOSTNAME',
      want: { name: 'HOSTNAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
    },
    { name: 'NETWORK_BRIDGE_NAME', want: { name: 'NETWORK_BRIDGE_NAME', value: 'br-abc12' } },
    { name: 'NETWORK_TAP_NAME', want: { name: 'NETWORK_TAP_NAME', value: 'tap-abc12' } },
    { name: 'CLOUD_CONFIG_PATH', want: { name: 'CLOUD_CONFIG_PATH', value: '/cloudconfig/user_data' } },
  ];
  for (const tc of cases) it(tc.name, () => assert.deepEqual(env(worker, tc.name), tc.want));

  it('has exactly these variables', () => {
    assert.deepEqual(
      container(worker, 'k8s-kvm')
        .env?.map((e) => e.name)
        .sort(),
      cases.map((c) => c.name).sort(),
    );
  });

  it('takes the channel, DNS and NTP servers from the options', () => {
    const custom = resolveKvmOptions({
      version: OPERATOR_VERSION,
      flatcarChannel: 'beta',
      dnsServers: ['10.0.0.1'],
      ntpServers: ['ntp.example'],
    });
    const c = clusterWith();
    const d = nodeDeployment(c, clusterNodes(c)[1], release, custom);
    const get = (n: string) => container(d, 'k8s-kvm').env?.find((e) => e.name === n)?.value;
    assert.deepEqual(
      [get('FLATCAR_CHANNEL'), get('DNS_SERVERS'), get('NTP_SERVERS')],
      ['beta', '10.0.0.1', 'ntp.example'],
    );
  });
});

describe('node deployment: resources (memory formula)', () => {
  const cases: { name: string; role: 'master' | 'worker'; memory: string; cpus: number; want: string }[] = [
    { name: 'master 4G: +1536M', role: 'master', memory: '4G', cpus: 2, want: '5536M' },
    { name: 'master 8G', role: 'master', memory: '8G', cpus: 4, want: '9536M' },
    { name: 'master 2048M', role: 'master', memory: '2048M', cpus: 1, want: '3584M' },
    { name: 'worker 4G: 4×1024 + 512 + (2+⌊4/12⌋)×768', role: 'worker', memory: '4G', cpus: 2, want: '6144M' },
    { name: 'worker 11G: overhead still 2×768', role: 'worker', memory: '11G', cpus: 4, want: '13312M' },
    { name: 'worker 13G: overhead steps to 3×768', role: 'worker', memory: '13G', cpus: 4, want: '16128M' },
    { name: 'worker 12G: 12×1024 + 512 + 3×768', role: 'worker', memory: '12G', cpus: 6, want: '15104M' },
    { name: 'worker 1.5G rounds GB up', role: 'worker', memory: '1.5G', cpus: 1, want: '4096M' },
    { name: 'worker 48G', role: 'worker', memory: '48G', cpus: 16, want: '54272M' },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const c = clusterWith({ vm: { memory: tc.memory, cpus: tc.cpus } });
      const d = deploymentOf(c, tc.role === 'master' ? 'master-m1' : 'worker-w1');
      const want = { cpu: String(tc.cpus), memory: tc.want };
      assert.deepEqual(container(d, 'k8s-kvm').resources, { requests: want, limits: want });
    });
  }
});

describe('node deployment: disks', () => {
  const cases: { name: string; role: 'master' | 'worker'; vm: Partial<KVMNodeSpec>; want: [string, string] }[] = [
    {
      name: 'worker: dockerVolumeSizeGB wins',
      role: 'worker',
      vm: { dockerVolumeSizeGB: 30, disk: 20 },
      want: ['30G', '30G'],
    },
    { name: 'worker: disk when no docker volume size', role: 'worker', vm: { disk: 20 }, want: ['20G', '20G'] },
    { name: 'worker: defaults', role: 'worker', vm: {}, want: ['50G', '5G'] },
    {
      name: 'master: fixed whatever the spec',
      role: 'master',
      vm: { dockerVolumeSizeGB: 30, disk: 20 },
      want: ['50G', '5G'],
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const d = deploymentOf(clusterWith({ vm: tc.vm }), tc.role === 'master' ? 'master-m1' : 'worker-w1');
      assert.deepEqual([env(d, 'DISK_DOCKER')?.value, env(d, 'DISK_KUBELET')?.value], tc.want);
    });
  }
});

describe('node deployment: ports from the VNI', () => {
  const cases = [
    { vni: 0, health: 23000, deferrer: 47000 },
    { vni: 26, health: 23026, deferrer: 47026 },
    { vni: 1000, health: 24000, deferrer: 48000 },
  ];
  for (const tc of cases) {
    it(`vni ${tc.vni}`, () => {
      const d = deploymentOf(clusterWith({ vni: tc.vni }), 'worker-w1');
      const kvm = container(d, 'k8s-kvm');
      const url = `http://127.0.0.1:${tc.deferrer}/v1/defer/`;
      assert.deepEqual(kvm.lifecycle, { preStop: { exec: { command: ['/qemu-shutdown', url] } } });
      const probe = (initialDelaySeconds: number) => ({
        httpGet: { path: '/healthz', port: tc.health, host: '127.0.0.1' },
        initialDelaySeconds,
        timeoutSeconds: 5,
        periodSeconds: 35,
        failureThreshold: 4,
        successThreshold: 1,
      });
      assert.deepEqual(kvm.livenessProbe, probe(500));
      assert.deepEqual(kvm.readinessProbe, probe(100));
      const health = container(d, 'k8s-kvm-health');
      assert.ok(health.env?.some((e) => e.name === 'LISTEN_ADDRESS' && e.value === `http://127.0.0.1:${tc.health}`));
      const deferrer = container(d, 'shutdown-deferrer');
      assert.deepEqual(deferrer.args, ['daemon', `--server.listen.address=http://127.0.0.1:${tc.deferrer}`]);
      assert.deepEqual(deferrer.lifecycle?.preStop.exec.command, ['/pre-shutdown-hook', url]);
      assert.equal(deferrer.livenessProbe?.httpGet.port, tc.deferrer);
    });
  }
});

describe('node deployment: volumes', () => {
  const base = [
    { name: 'images', hostPath: { path: '/var/lib/flatcar-kvm-images' } },
    { name: 'rootfs', emptyDir: {} },
    { name: 'flannel', hostPath: { path: '/run/flannel' } },
  ];
  const cases: { name: string; storage?: string; deployment: string; etcd?: object }[] = [
    {
      name: 'first master, hostPath (numbered from 0)',
      deployment: 'master-m1',
      etcd: { name: 'etcd-data', hostPath: { path: '/home/core/volumes/abc12/k8s-master-vm0' } },
    },
    {
      name: 'third master, hostPath',
      deployment: 'master-m3',
      etcd: { name: 'etcd-data', hostPath: { path: '/home/core/volumes/abc12/k8s-master-vm2' } },
    },
    {
      name: 'third master, persistentVolume',
      storage: 'persistentVolume',
      deployment: 'master-m3',
      etcd: { name: 'etcd-data', persistentVolumeClaim: { claimName: 'pvc-master-etcd-abc12-2' } },
    },
    { name: 'worker: no etcd volume', storage: 'persistentVolume', deployment: 'worker-w1' },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const d = deploymentOf(clusterWith({ masters: 3, storage: tc.storage }), tc.deployment);
      const cm = `${tc.deployment.split('-')[0]}-abc12-${tc.deployment.split('-')[1]}`;
      const want = [{ name: 'cloud-config', configMap: { name: cm } }, ...(tc.etcd ? [tc.etcd] : []), ...base];
      assert.deepEqual(d.spec.template.spec.volumes, want);
      const mounts = container(d, 'k8s-kvm').volumeMounts?.map((m) => m.name);
      assert.deepEqual(mounts, ['cloud-config', ...(tc.etcd ? ['etcd-data'] : []), 'images', 'rootfs']);
    });
  }
});

describe('node deployment: metadata and pod spec', () => {
  const c = clusterWith();
  const d = deploymentOf(c, 'master-m1');
  const cases: { name: string; got: () => unknown; want: unknown }[] = [
    { name: 'namespace', got: () => d.metadata.namespace, want: 'abc12' },
    {
      name: 'labels',
      got: () => d.metadata.labels,
      want: {
        app: 'master',
        cluster: 'abc12',
        customer: 'acme',
        node: 'm1',
        'giantswarm.io/cluster': 'abc12',
        'giantswarm.io/organization': 'acme',
        'giantswarm.io/managed-by': 'kvm-operator',
      },
    },
    {
      name: 'annotations',
      got: () => d.metadata.annotations,
      want: {
        'giantswarm.io/release-version': RELEASE_VERSION,
        'giantswarm.io/version-bundle-version': OPERATOR_VERSION,
      },
    },
    { name: 'replicas', got: () => d.spec.replicas, want: 1 },
    { name: 'strategy', got: () => d.spec.strategy, want: { type: 'Recreate' } },
    {
      name: 'selector',
      got: () => d.spec.selector,
      want: { matchLabels: { app: 'master', cluster: 'abc12', node: 'm1' } },
    },
    {
      name: 'pod labels',
      got: () => d.spec.template.metadata.labels,
      want: {
        app: 'master',
        cluster: 'abc12',
        customer: 'acme',
        node: 'm1',
        'giantswarm.io/cluster': 'abc12',
        'giantswarm.io/organization': 'acme',
        'kvm-operator.giantswarm.io/pod-watcher': 'kvm-operator',
        'kvm-operator.giantswarm.io/version': OPERATOR_VERSION,
        'release.giantswarm.io/version': RELEASE_VERSION,
      },
    },
    {
      name: 'pod annotations',
      got: () => d.spec.template.metadata.annotations,
      want: {
        'kvm-operator.giantswarm.io/api-endpoint': 'api.abc12.k8s.example.com',
        'endpoint.kvm.giantswarm.io/ip': '',
        'endpoint.kvm.giantswarm.io/service': 'master',
        'endpoint.kvm.giantswarm.io/drained': 'False',
        'kvm-operator.giantswarm.io/version-bundle': OPERATOR_VERSION,
        'kvm-operator.giantswarm.io/component-version-calico': '3.15.3',
        'kvm-operator.giantswarm.io/component-version-containerlinux': '2605.12.0',
        'kvm-operator.giantswarm.io/component-version-etcd': '3.4.14',
        'kvm-operator.giantswarm.io/component-version-kubernetes': '1.19.8',
      },
    },
    { name: 'hostNetwork', got: () => d.spec.template.spec.hostNetwork, want: true },
    { name: 'nodeSelector', got: () => d.spec.template.spec.nodeSelector, want: { role: 'master' } },
    { name: 'serviceAccountName', got: () => d.spec.template.spec.serviceAccountName, want: 'abc12' },
    { name: 'grace period', got: () => d.spec.template.spec.terminationGracePeriodSeconds, want: 300 },
    {
      name: 'anti-affinity',
      got: () => d.spec.template.spec.affinity,
      want: {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            {
              labelSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['master', 'worker'] }] },
              topologyKey: 'kubernetes.io/hostname',
              namespaces: ['abc12'],
            },
          ],
        },
      },
    },
    {
      name: 'containers and images',
      got: () => d.spec.template.spec.containers.map((x) => [x.name, x.image]),
      want: [
        ['k8s-endpoint-updater', options.images.endpointUpdater],
        ['k8s-kvm', options.images.k8sKvm],
        ['k8s-kvm-health', options.images.health],
        ['shutdown-deferrer', options.images.shutdownDeferrer],
      ],
    },
    {
      name: 'no readiness gates (baseline endpoint semantics)',
      got: () => 'readinessGates' in d.spec.template.spec,
      want: false,
    },
    { name: 'VM runs privileged', got: () => container(d, 'k8s-kvm').securityContext, want: { privileged: true } },
  ];
  for (const tc of cases) it(tc.name, () => assert.deepEqual(tc.got(), tc.want));

  it('masters first, then workers, one per node', () => {
    const names = nodeDeployments(clusterWith({ masters: 1, workers: 2 }), release, options).map(
      (x) => x.metadata.name,
    );
    assert.deepEqual(names, ['master-m1', 'worker-w1', 'worker-w2']);
  });

  it('a component missing from the release gets no annotation', () => {
    const r = sampleRelease();
    r.spec.components = r.spec.components.filter((x) => x.name !== 'calico');
    const x = nodeDeployment(c, clusterNodes(c)[0], r, options);
    assert.equal(
      x.spec.template.metadata.annotations['kvm-operator.giantswarm.io/component-version-calico'],
      undefined,
    );
  });

  it('only masters check the workload API from their health container', () => {
    const w = deploymentOf(c, 'worker-w1');
    assert.ok(container(d, 'k8s-kvm-health').env?.some((e) => e.name === 'CHECK_K8S_API'));
    assert.ok(!container(w, 'k8s-kvm-health').env?.some((e) => e.name === 'CHECK_K8S_API'));
  });
});
