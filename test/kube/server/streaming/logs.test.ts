// pods/log: kube-apiserver's checks (PodLogOptions validation, container choice; pkg/registry/core/
// pod/rest/log.go, pkg/apis/core/validation ValidatePodLogOptions, pod/strategy.go LogLocation)
// and the options the node receives, through kubectl 1.27 and 1.33. The node's log is generated
// by the test's PodStreams, which filters it as the kubelet does.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl, kubectlStream } from '../../../helpers/kubectl.ts';
import { eventually } from '../../../helpers/control-plane.ts';
import { waitFor } from '../../../helpers/wait.ts';
import { rfc3339Nano } from './process-pod-streams.ts';
import { startStreamingCluster, type StreamingCluster } from './cluster.ts';

let c: StreamingCluster;
before(async () => {
  c = await startStreamingCluster();
});
after(async () => {
  await c.cp.stop();
});

const lines = (from: number, to: number): string =>
  Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}\n`).join('');

for (const version of ['1.27', '1.33']) {
  describe(`kubectl ${version} logs`, () => {
    test('the whole log of the only container', async () => {
      const r = await kubectl(c.kubeconfig, ['logs', 'one'], { version });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, lines(1, 20));
      assert.deepEqual(c.node.logQueries.at(-1), {
        container: 'app',
        previous: false,
        follow: false,
        timestamps: false,
      });
    });

    test('--tail, --timestamps, --limit-bytes and -c reach the node', async () => {
      const tail = await kubectl(c.kubeconfig, ['logs', 'one', '--tail=3'], { version });
      assert.equal(tail.stdout, lines(18, 20));
      assert.equal(c.node.logQueries.at(-1)?.tailLines, 3);

      const stamped = await kubectl(c.kubeconfig, ['logs', 'one', '--timestamps', '--tail=1'], { version });
      assert.equal(stamped.stdout, `${rfc3339Nano(c.node.lines[19].at)} line 20\n`);

      const limited = await kubectl(c.kubeconfig, ['logs', 'one', '--limit-bytes=10'], { version });
      assert.equal(limited.stdout, 'line 1\nlin');
      assert.equal(c.node.logQueries.at(-1)?.limitBytes, 10);

      const b = await kubectl(c.kubeconfig, ['logs', 'two', '-c', 'b', '--tail=1'], { version });
      assert.equal(b.code, 0, b.stderr);
      assert.equal(c.node.logQueries.at(-1)?.container, 'b');
    });

    test('--since becomes a moment the node filters by', async () => {
      const before = Date.now();
      const r = await kubectl(c.kubeconfig, ['logs', 'one', '--since=5s'], { version });
      assert.equal(r.code, 0, r.stderr);
      const since = c.node.logQueries.at(-1)?.since;
      assert.ok(since instanceof Date);
      assert.ok(Math.abs(since.getTime() - (before - 5000)) < 3000, `since ${since.toISOString()}`);
      const expected = c.node.lines.filter((l) => l.at >= since).map((l) => `${l.text}\n`);
      assert.equal(r.stdout, expected.join(''));
    });

    test('-f streams new lines and ends when the container’s log ends', async () => {
      const follow = kubectlStream(c.kubeconfig, ['logs', '-f', 'one', '--tail=1'], version);
      await waitFor(() => follow.output().includes('line 20\n'), 'the tail', 10_000);
      await waitFor(() => c.node.followerCount === 1, 'the node following', 5000);
      c.node.append('fresh line');
      await waitFor(() => follow.output().includes('fresh line\n'), 'the new line', 10_000);
      c.node.endFollowers();
      await waitFor(() => follow.child.exitCode !== null, 'kubectl logs -f to end', 10_000);
      assert.equal(follow.child.exitCode, 0, follow.output());
      assert.equal(follow.output(), 'line 20\nfresh line\n');
      c.node.lines.pop();
    });
  });
}

test('a follower that goes away stops the node’s stream', async () => {
  const follow = kubectlStream(c.kubeconfig, ['logs', '-f', 'one', '--tail=0']);
  await waitFor(() => c.node.followerCount === 1, 'the node following', 10_000);
  follow.stop();
  await waitFor(() => c.node.followerCount === 0, 'the follower released', 10_000);
});

test('kubectl logs deploy/x reads a pod of the deployment', async () => {
  const created = await kubectl(c.kubeconfig, ['create', 'deployment', 'web', '--image=nginx', '--replicas=1']);
  assert.equal(created.code, 0, created.stderr);
  await eventually(
    async () =>
      (await kubectl(c.kubeconfig, ['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].status.phase}']))
        .stdout === 'Running',
    { timeoutMs: 20_000, what: 'the deployment’s pod running' },
  );
  const r = await kubectl(c.kubeconfig, ['logs', 'deploy/web', '--tail=2'], { version: '1.33' });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, lines(19, 20));
  assert.equal(c.node.logQueries.at(-1)?.container, 'nginx');
});

describe('the API server’s answers', () => {
  const raw = (path: string) => kubectl(c.kubeconfig, ['get', '--raw', path]);

  test('several containers and none named: 400 listing them', async () => {
    const r = await raw('/api/v1/namespaces/default/pods/two/log');
    assert.match(r.stderr, /\(BadRequest\): a container name must be specified for pod two, choose one of: \[a b\]/);
  });

  test('an unknown container: 400', async () => {
    const r = await kubectl(c.kubeconfig, ['logs', 'two', '-c', 'nope']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /container nope is not valid for pod two/);
  });

  test('invalid PodLogOptions: 422 with kube’s field messages', async () => {
    const tail = await raw('/api/v1/namespaces/default/pods/one/log?tailLines=-1');
    assert.match(
      tail.stderr,
      /The PodLogOptions "one" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0/,
    );
    const limit = await raw('/api/v1/namespaces/default/pods/one/log?limitBytes=0');
    assert.match(limit.stderr, /PodLogOptions "one" is invalid: limitBytes: Invalid value: 0: must be greater than 0/);
    const since = await raw('/api/v1/namespaces/default/pods/one/log?sinceSeconds=0');
    assert.match(
      since.stderr,
      /PodLogOptions "one" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0/,
    );
    const both = await raw('/api/v1/namespaces/default/pods/one/log?sinceSeconds=5&sinceTime=2024-01-01T00:00:00Z');
    assert.match(
      both.stderr,
      /PodLogOptions "one" is invalid: : Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified/,
    );
  });

  test('a pod not on a node has an empty log', async () => {
    const r = await kubectl(c.kubeconfig, ['logs', 'nowhere']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '');
  });

  test('a missing pod: 404', async () => {
    const r = await kubectl(c.kubeconfig, ['logs', 'ghost']);
    assert.match(r.stderr, /pods "ghost" not found/);
  });

  test('without a node runtime the log is empty and exec is not served', async (t) => {
    const node = c.cp.internals.extensions.podStreams;
    c.cp.internals.extensions.podStreams = undefined;
    t.after(() => {
      c.cp.internals.extensions.podStreams = node;
    });
    const r = await kubectl(c.kubeconfig, ['logs', 'one']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '');
    const exec = await kubectl(c.kubeconfig, ['exec', 'one', '--', 'true'], { version: '1.27' });
    assert.match(exec.stderr, /the server could not find the requested resource/);
  });
});
