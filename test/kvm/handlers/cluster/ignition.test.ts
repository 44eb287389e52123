// The VM's ignition: what it carries, that it renders deterministically, and that the node labels
// and taints a simulated VM registers with parse back out of it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { NodeRole } from '../../../../src/kvm/api/index.ts';
import { resolveKvmOptions } from '../../../../src/kvm/options.ts';
import {
  CLUSTER_ENV_PATH,
  ISCSI_INITIATOR_PATH,
  ignitionFile,
  nodeLabelsFromUserData,
  nodeTaintsFromUserData,
  parseLabelList,
  parseUserData,
  renderUserData,
} from '../../../../src/kvm/handlers/cluster/ignition.ts';
import type { IgnitionParams } from '../../../../src/kvm/handlers/cluster/ignition.ts';
import { OPERATOR_VERSION, RELEASE_VERSION, sampleKvmConfig, sampleRelease } from '../../helpers.ts';

const options = resolveKvmOptions({ version: OPERATOR_VERSION, dnsServers: ['10.0.0.2'], ntpServers: ['ntp.example'] });

function params(role: NodeRole, overrides: Partial<IgnitionParams> = {}): IgnitionParams {
  const cluster = sampleKvmConfig();
  cluster.spec.cluster.kubernetes = {
    ...cluster.spec.cluster.kubernetes,
    kubelet: { labels: 'ip=10.1.2.3,role=spoofed,custom.example/tier=gold' },
    ssh: { userList: [{ name: 'alice', publicKey: 'ssh-ed25519 AAAA alice' }] },
  };
  return {
    cluster,
    role,
    nodeId: role === 'master' ? 'm1' : 'w1',
    nodeIndex: 3,
    release: sampleRelease(),
    options,
    ...overrides,
  };
}

describe('ignition round trip: labels and taints', () => {
  const cases: { role: NodeRole; labels: Record<string, string>; taints: object[] }[] = [
    {
      role: 'master',
      labels: {
        role: 'master',
        'kubernetes.io/role': 'master',
        'node-role.kubernetes.io/master': '',
        'node.kubernetes.io/master': '',
        'kvm-operator.giantswarm.io/version': OPERATOR_VERSION,
        'release.giantswarm.io/version': RELEASE_VERSION,
        'giantswarm.io/cluster': 'abc12',
        ip: '10.1.2.3',
        'custom.example/tier': 'gold',
      },
      taints: [{ key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' }],
    },
    {
      role: 'worker',
      labels: {
        role: 'worker',
        'kubernetes.io/role': 'worker',
        'node-role.kubernetes.io/worker': '',
        'node.kubernetes.io/worker': '',
        'kvm-operator.giantswarm.io/version': OPERATOR_VERSION,
        'release.giantswarm.io/version': RELEASE_VERSION,
        'giantswarm.io/cluster': 'abc12',
        ip: '10.1.2.3',
        'custom.example/tier': 'gold',
      },
      taints: [],
    },
  ];
  for (const tc of cases) {
    it(`${tc.role}: labels (the operator's win over kubelet labels from the spec)`, () => {
      assert.deepEqual(nodeLabelsFromUserData(renderUserData(params(tc.role))), tc.labels);
    });
    it(`${tc.role}: taints`, () => {
      assert.deepEqual(nodeTaintsFromUserData(renderUserData(params(tc.role))), tc.taints);
    });
  }

  it('parses decoded JSON as well as base64', () => {
    const json = Buffer.from(renderUserData(params('worker')), 'base64').toString('utf8');
    assert.equal(nodeLabelsFromUserData(json).role, 'worker');
  });

  it('parses taints with values', () => {
    const cfg = parseUserData(renderUserData(params('worker')));
    const f = cfg.storage.files.find((x) => x.path === '/etc/kubernetes/kubelet.env');
    assert.ok(f);
    f.contents.source = `data:,${encodeURIComponent('KUBELET_REGISTER_WITH_TAINTS=a=b:NoExecute,c:NoSchedule\n')}`;
    assert.deepEqual(nodeTaintsFromUserData(JSON.stringify(cfg)), [
      { key: 'a', value: 'b', effect: 'NoExecute' },
      { key: 'c', effect: 'NoSchedule' },
    ]);
  });

  it('rejects what is not ignition', () => {
    assert.throws(() => nodeLabelsFromUserData(Buffer.from('#cloud-config').toString('base64')), /not an ignition/);
    assert.throws(() => nodeLabelsFromUserData('{"storage":{"files":[]}}'), /no \/etc\/kubernetes\/kubelet.env/);
  });
});

describe('ignition content', () => {
  const cfgOf = (p: IgnitionParams) => parseUserData(renderUserData(p));
  const cases: { name: string; p: IgnitionParams; path: string; includes: string[] }[] = [
    {
      name: 'iSCSI initiator name from the node index (master)',
      p: params('master'),
      path: ISCSI_INITIATOR_PATH,
      includes: ['InitiatorName=iqn.2016-04.com.coreos.iscsi:giantswarm-abc12-master-3'],
    },
    {
      name: 'iSCSI initiator name from the node index (worker 7)',
      p: params('worker', { nodeIndex: 7 }),
      path: ISCSI_INITIATOR_PATH,
      includes: ['giantswarm-abc12-worker-7'],
    },
    {
      name: 'DNS servers',
      p: params('worker'),
      path: '/etc/systemd/resolved.conf.d/10-giantswarm.conf',
      includes: ['DNS=10.0.0.2'],
    },
    {
      name: 'NTP servers',
      p: params('worker'),
      path: '/etc/systemd/timesyncd.conf.d/10-giantswarm.conf',
      includes: ['NTP=ntp.example'],
    },
    {
      name: 'domains and versions',
      p: params('master'),
      path: CLUSTER_ENV_PATH,
      includes: [
        'API_DOMAIN=api.abc12.k8s.example.com',
        'API_SECURE_PORT=443',
        'ETCD_DOMAIN=etcd.abc12.k8s.example.com',
        'KUBERNETES_VERSION=1.19.8',
        'ETCD_VERSION=3.4.14',
        'CALICO_VERSION=3.15.3',
        'FLATCAR_VERSION=2605.12.0',
        'NODE_ROLE=master',
        'NODE_ID=m1',
      ],
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const text = ignitionFile(cfgOf(tc.p), tc.path) ?? '';
      for (const s of tc.includes) assert.ok(text.includes(s), `${tc.path} has ${s}:\n${text}`);
    });
  }

  it('SSH users from the spec', () => {
    assert.deepEqual(cfgOf(params('worker')).passwd.users, [
      { name: 'alice', sshAuthorizedKeys: ['ssh-ed25519 AAAA alice'], groups: ['sudo', 'docker'] },
    ]);
  });

  it('units: etcd on masters only, the kubelet everywhere with the release kubernetes', () => {
    const units = (r: NodeRole) => cfgOf(params(r)).systemd.units.map((u) => u.name);
    assert.ok(units('master').includes('etcd3.service'));
    assert.ok(!units('worker').includes('etcd3.service'));
    const kubelet = cfgOf(params('worker')).systemd.units.find((u) => u.name === 'kubelet.service');
    assert.match(kubelet?.contents ?? '', /hyperkube:v1\.19\.8/);
  });

  it('renders identically twice (no config map rewrite on an unchanged spec)', () => {
    assert.equal(renderUserData(params('master')), renderUserData(params('master')));
  });

  it('changes with the release', () => {
    assert.notEqual(
      renderUserData(params('worker')),
      renderUserData(params('worker', { release: sampleRelease('14.2.0', '1.20.1') })),
    );
  });
});

describe('parseLabelList', () => {
  const cases: { list: string | undefined; want: Record<string, string> }[] = [
    { list: undefined, want: {} },
    { list: '', want: {} },
    { list: 'a=b', want: { a: 'b' } },
    { list: ' a=b , c= ,d ', want: { a: 'b', c: '', d: '' } },
    { list: 'x.io/y=z,,', want: { 'x.io/y': 'z' } },
  ];
  for (const tc of cases) it(JSON.stringify(tc.list), () => assert.deepEqual(parseLabelList(tc.list), tc.want));
});
