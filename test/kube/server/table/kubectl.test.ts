// `kubectl get` and `kubectl describe` with the real kubectl binaries, reading our Tables.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { kubectl, kubectlStream } from '../../../helpers/kubectl.ts';
import { call } from '../http.ts';

let cp: TestCluster;
const VERSIONS = [undefined, '1.27'];

async function k(args: string[], version?: string, input?: string): Promise<string> {
  const r = await kubectl(cp.kubeconfigPath, args, { version, input });
  assert.equal(r.code, 0, `kubectl ${args.join(' ')} (${version ?? 'default'}): ${r.stderr}`);
  return r.stdout;
}

/** Rows split into whitespace-separated fields (cells hold no runs of spaces in these tests). */
function table(out: string): string[][] {
  return out
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s{2,}/));
}

const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
/** The Ready condition a kubelet posts, stamped now. */
const readyCondition = () => ({
  type: 'Ready',
  status: 'True',
  reason: 'KubeletReady',
  message: 'ok',
  lastHeartbeatTime: now(),
  lastTransitionTime: now(),
});

async function mustPass(method: string, path: string, body: unknown, contentType?: string): Promise<void> {
  const r = await call(cp, method, path, { body, contentType });
  assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.body}`);
}

const WIDGET_CRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: { plural: widgets, singular: widget, kind: Widget, shortNames: [wd] }
  versions:
    - name: v1
      served: true
      storage: true
      subresources: { status: {} }
      additionalPrinterColumns:
        - { name: Size, type: integer, jsonPath: .spec.size }
        - { name: Color, type: string, jsonPath: .spec.color }
        - { name: Shiny, type: boolean, jsonPath: .spec.shiny, priority: 1 }
        - { name: Age, type: date, jsonPath: .metadata.creationTimestamp }
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                size: { type: integer }
                color: { type: string }
                shiny: { type: boolean }
`;

before(async () => {
  cp = await startTestCluster({ scheduler: false });
  await k(['run', 'web', '--image=nginx', '--labels=app=web']);
  // What a kubelet would report for a started pod, written through the status subresource.
  const podPath = '/api/v1/namespaces/default/pods/web/status';
  await mustPass(
    'PATCH',
    podPath,
    {
      status: {
        phase: 'Running',
        podIP: '10.244.0.7',
        podIPs: [{ ip: '10.244.0.7' }],
        conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now() }],
        containerStatuses: [
          {
            name: 'web',
            image: 'nginx',
            imageID: '',
            ready: true,
            started: true,
            restartCount: 0,
            state: { running: { startedAt: now() } },
          },
        ],
      },
    },
    'application/merge-patch+json',
  );
  await k(['run', 'waiting', '--image=busybox']);
  await mustPass(
    'PATCH',
    '/api/v1/namespaces/default/pods/waiting/status',
    {
      status: {
        phase: 'Pending',
        containerStatuses: [
          {
            name: 'waiting',
            image: 'busybox',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { waiting: { reason: 'ContainerCreating' } },
          },
        ],
      },
    },
    'application/merge-patch+json',
  );
  await mustPass('POST', '/api/v1/nodes', {
    metadata: { name: 'node-a', labels: { 'node-role.kubernetes.io/control-plane': '' } },
  });
  await mustPass(
    'PATCH',
    '/api/v1/nodes/node-a/status',
    {
      status: {
        conditions: [readyCondition()],
        addresses: [{ type: 'InternalIP', address: '192.168.1.10' }],
        nodeInfo: {
          kubeletVersion: 'v1.33.0',
          osImage: 'Debian GNU/Linux 12',
          kernelVersion: '6.1.0',
          containerRuntimeVersion: 'containerd://1.7.0',
          machineID: '',
          systemUUID: '',
          bootID: '',
          kubeProxyVersion: '',
          operatingSystem: 'linux',
          architecture: 'amd64',
        },
      },
    },
    'application/merge-patch+json',
  );
  await k(['apply', '-f', '-'], undefined, WIDGET_CRD);
  await eventually(async () => (await kubectl(cp.kubeconfigPath, ['get', 'widgets'])).code === 0, {
    what: 'widgets served',
  });
  await k(
    ['apply', '-f', '-'],
    undefined,
    'apiVersion: example.com/v1\nkind: Widget\nmetadata: { name: w1, namespace: default }\nspec: { size: 3, color: blue, shiny: true }\n',
  );
});
after(() => cp.stop());

describe('kubectl get', () => {
  for (const version of VERSIONS) {
    test(`pods (${version ?? 'default'})`, async () => {
      const rows = table(await k(['get', 'pods'], version));
      assert.deepEqual(rows[0], ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
      const web = rows.find((r) => r[0] === 'web');
      assert.deepEqual(web?.slice(0, 4), ['web', '1/1', 'Running', '0']);
      assert.match(web?.[4] ?? '', /^\d+s$/);
      assert.deepEqual(rows.find((r) => r[0] === 'waiting')?.slice(0, 3), ['waiting', '0/1', 'ContainerCreating']);
    });
  }

  test('pods -o wide', async () => {
    const rows = table(await k(['get', 'pods', '-o', 'wide']));
    assert.deepEqual(rows[0], [
      'NAME',
      'READY',
      'STATUS',
      'RESTARTS',
      'AGE',
      'IP',
      'NODE',
      'NOMINATED NODE',
      'READINESS GATES',
    ]);
    const web = rows.find((r) => r[0] === 'web');
    assert.deepEqual(web?.slice(5), ['10.244.0.7', '<none>', '<none>', '<none>']);
  });

  test('nodes, narrow and wide', async () => {
    const rows = table(await k(['get', 'nodes']));
    assert.deepEqual(rows[0], ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
    const node = rows.find((r) => r[0] === 'node-a');
    assert.deepEqual([node?.[1], node?.[2], node?.[4]], ['Ready', 'control-plane', 'v1.33.0']);
    await k(['cordon', 'node-a']);
    const cordoned = table(await k(['get', 'node', 'node-a', '-o', 'wide']));
    assert.deepEqual(cordoned[0], [
      'NAME',
      'STATUS',
      'ROLES',
      'AGE',
      'VERSION',
      'INTERNAL-IP',
      'EXTERNAL-IP',
      'OS-IMAGE',
      'KERNEL-VERSION',
      'CONTAINER-RUNTIME',
    ]);
    assert.deepEqual(cordoned[1].slice(1, 3), ['Ready,SchedulingDisabled', 'control-plane']);
    assert.deepEqual(cordoned[1].slice(5), [
      '192.168.1.10',
      '<none>',
      'Debian GNU/Linux 12',
      '6.1.0',
      'containerd://1.7.0',
    ]);
    await k(['uncordon', 'node-a']);
  });

  test('deploy,svc,cm,secret,ns', async () => {
    await k(['create', 'deployment', 'api', '--image=nginx', '--replicas=2']);
    await k(['create', 'configmap', 'settings', '--from-literal=a=1', '--from-literal=b=2']);
    await k(['create', 'secret', 'generic', 'creds', '--from-literal=password=x']);
    // The deployment controller makes 2 up-to-date pods; without a scheduler none gets ready.
    const out = await eventually(
      async () => {
        const o = await k(['get', 'deploy,svc,cm,secret,ns']);
        return /deployment\.apps\/api\s+0\/2\s+2\s+0\s/.test(o) ? o : undefined;
      },
      { what: 'deployment api with 2 up-to-date replicas' },
    );
    const sections = out!
      .trim()
      .split(/\n\s*\n/)
      .map(table);
    const byHeader = new Map(sections.map((s) => [s[0].join(' '), s.slice(1)]));
    assert.deepEqual(byHeader.get('NAME READY UP-TO-DATE AVAILABLE AGE')?.[0]?.slice(0, 4), [
      'deployment.apps/api',
      '0/2',
      '2',
      '0',
    ]);
    assert.deepEqual(byHeader.get('NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE')?.[0]?.slice(0, 5), [
      'service/kubernetes',
      'ClusterIP',
      '10.96.0.1',
      '<none>',
      '443/TCP',
    ]);
    const cms = byHeader.get('NAME DATA AGE');
    assert.deepEqual(cms?.find((r) => r[0] === 'configmap/settings')?.slice(0, 2), ['configmap/settings', '2']);
    assert.deepEqual(
      byHeader
        .get('NAME TYPE DATA AGE')
        ?.find((r) => r[0] === 'secret/creds')
        ?.slice(0, 3),
      ['secret/creds', 'Opaque', '1'],
    );
    assert.deepEqual(
      byHeader
        .get('NAME STATUS AGE')
        ?.find((r) => r[0] === 'namespace/default')
        ?.slice(0, 2),
      ['namespace/default', 'Active'],
    );
    const wide = table(await k(['get', 'deploy', 'api', '-o', 'wide']));
    assert.deepEqual(wide[0].slice(5), ['CONTAINERS', 'IMAGES', 'SELECTOR']);
    assert.deepEqual(wide[1].slice(5), ['nginx', 'nginx', 'app=api']);
  });

  for (const version of VERSIONS) {
    test(`custom resources follow additionalPrinterColumns (${version ?? 'default'})`, async () => {
      const rows = table(await k(['get', 'widgets'], version));
      assert.deepEqual(rows[0], ['NAME', 'SIZE', 'COLOR', 'AGE']);
      assert.deepEqual(rows[1].slice(0, 3), ['w1', '3', 'blue']);
      assert.match(rows[1][3], /^\d+s$/);
      const wide = table(await k(['get', 'wd', '-o', 'wide'], version));
      assert.deepEqual(wide[0], ['NAME', 'SIZE', 'COLOR', 'SHINY', 'AGE']);
      assert.equal(wide[1][3], 'true');
    });
  }

  test('CRDs list NAME and CREATED AT', async () => {
    const rows = table(await k(['get', 'crd']));
    assert.deepEqual(rows[0], ['NAME', 'CREATED AT']);
    assert.equal(rows[1][0], 'widgets.example.com');
    assert.match(rows[1][1], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  test('-A adds NAMESPACE', async () => {
    await k(['create', 'namespace', 'team-a']);
    await k(['create', 'configmap', 'only-here', '-n', 'team-a']);
    const rows = table(await k(['get', 'configmaps', '-A']));
    assert.deepEqual(rows[0], ['NAMESPACE', 'NAME', 'DATA', 'AGE']);
    assert.deepEqual(rows.find((r) => r[1] === 'only-here')?.slice(0, 3), ['team-a', 'only-here', '0']);
  });

  test('-w prints a row per ADDED and MODIFIED', async () => {
    const w = kubectlStream(cp.kubeconfigPath, ['get', 'configmaps', '-n', 'team-a', '-w']);
    try {
      await eventually(() => w.output().includes('only-here'), { what: 'initial rows', timeoutMs: 20_000 });
      await k(['create', 'configmap', 'watched', '-n', 'team-a', '--from-literal=a=1']);
      await eventually(() => /watched\s+1\s+\d+s/.test(w.output()), { what: 'ADDED row', timeoutMs: 20_000 });
      await k(['patch', 'configmap', 'watched', '-n', 'team-a', '--type=merge', '-p', '{"data":{"b":"2"}}']);
      await eventually(() => /watched\s+2\s+\d+s/.test(w.output()), { what: 'MODIFIED row', timeoutMs: 20_000 });
      const header = w.output().split('\n')[0];
      assert.match(header, /^NAME\s+DATA\s+AGE$/);
      assert.equal(w.output().match(/^NAME\s/gm)?.length, 1, w.output());
    } finally {
      w.stop();
    }
  });
});

describe('kubectl describe', () => {
  async function uidOf(args: string[]): Promise<string> {
    return (await k([...args, '-o', 'jsonpath={.metadata.uid}'])).trim();
  }

  async function addEvent(
    ns: string,
    involved: Record<string, string>,
    reason: string,
    message: string,
  ): Promise<void> {
    await mustPass('POST', `/api/v1/namespaces/${ns}/events`, {
      metadata: { name: `${involved.name}.${reason.toLowerCase()}`, namespace: ns },
      involvedObject: involved,
      reason,
      message,
      type: 'Normal',
      source: { component: 'test' },
      firstTimestamp: now(),
      lastTimestamp: now(),
      count: 1,
    });
  }

  test('pod, with its events', async () => {
    await addEvent(
      'default',
      { kind: 'Pod', name: 'web', namespace: 'default', uid: await uidOf(['get', 'pod', 'web']), apiVersion: 'v1' },
      'Pulled',
      'Image pulled',
    );
    const out = await k(['describe', 'pod', 'web']);
    assert.match(out, /^Name:\s+web$/m);
    assert.match(out, /^Status:\s+Running$/m);
    assert.match(out, /^IP:\s+10\.244\.0\.7$/m);
    assert.match(out, /Events:\s*\n\s+Type\s+Reason\s+Age\s+From\s+Message/);
    assert.match(out, /Normal\s+Pulled\s+\S+\s+test\s+Image pulled/);
  });

  test('node, with its events', async () => {
    await addEvent(
      'default',
      { kind: 'Node', name: 'node-a', uid: 'node-a', apiVersion: 'v1' },
      'Starting',
      'Starting kubelet.',
    );
    // A kubelet keeps posting; the file may have run longer than the node monitor's grace since the
    // node was written, so post a fresh Ready heartbeat as the kubelet would before describing it.
    await mustPass(
      'PATCH',
      '/api/v1/nodes/node-a/status',
      { status: { conditions: [readyCondition()] } },
      'application/strategic-merge-patch+json',
    );
    const out = await k(['describe', 'node', 'node-a']);
    assert.match(out, /^Name:\s+node-a$/m);
    assert.match(out, /^Roles:\s+control-plane$/m);
    assert.match(out, /Ready\s+True/);
    assert.match(out, /Normal\s+Starting\s+\S+\s+test\s+Starting kubelet\./);
  });

  test('custom resource, with its events', async () => {
    const uid = await uidOf(['get', 'widget', 'w1']);
    await addEvent(
      'default',
      { kind: 'Widget', name: 'w1', namespace: 'default', uid, apiVersion: 'example.com/v1' },
      'Polished',
      'Widget polished',
    );
    const out = await k(['describe', 'widget', 'w1']);
    assert.match(out, /^Name:\s+w1$/m);
    assert.match(out, /Size:\s+3/);
    assert.match(out, /Normal\s+Polished\s+\S+\s+test\s+Widget polished/);
  });

  test('get events shows LAST SEEN, TYPE, REASON, OBJECT, MESSAGE', async () => {
    for (const args of [
      ['get', 'events'],
      ['get', 'events.v1.events.k8s.io'],
    ]) {
      const rows = table(await k(args));
      assert.deepEqual(rows[0], ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE'], args.join(' '));
      assert.deepEqual(rows.find((r) => r[2] === 'Pulled')?.slice(1), ['Normal', 'Pulled', 'pod/web', 'Image pulled']);
    }
  });
});
