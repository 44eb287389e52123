// The Job controller with simulated containers that exit (pkg/controller/job/job_controller.go,
// kube 1.33): completions/parallelism, SuccessCriteriaMet then Complete (reason
// CompletionsReached, "Reached expected number of succeeded pods"), backoffLimit
// (BackoffLimitExceeded), the job-tracking finalizer, owner references, and the kubectl commands
// that drive Jobs (`create job`, `wait --for=condition=complete`) with kubectl 1.27 and 1.33.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { kubectl } from '../../../helpers/kubectl.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';

interface Job extends JsonObject {
  metadata: JsonObject & { uid: string; labels?: Record<string, string> };
  spec: JsonObject;
  status: JsonObject & { conditions?: JsonObject[] };
}

/** `eventually` for checks that return the object they waited for. */
async function found<T>(check: () => T | undefined, opts: { what: string }): Promise<T> {
  return (await eventually(check, opts)) as T;
}

describe('Job controller', () => {
  let cp: TestCluster;
  before(async () => {
    cp = await startTestCluster({ nodes: 2, jobPodFailureBackoffMs: 100 });
  });
  after(() => cp.stop());

  const job = (ns: string, name: string): Job | undefined => {
    const s = cp.internals.storage.get(`/batch/jobs/${ns}/${name}`);
    return s ? (JSON.parse(s.json) as Job) : undefined;
  };
  const podsOf = (ns: string, name: string): JsonObject[] =>
    cp.internals.storage
      .list(`/core/pods/${ns}/`)
      .map((s) => JSON.parse(s.json) as JsonObject)
      .filter((p) => ((p.metadata as JsonObject).labels as Record<string, string>)?.['job-name'] === name);
  const condition = (j: Job | undefined, type: string): JsonObject | undefined =>
    j?.status.conditions?.find((c) => c.type === type);

  for (const version of ['1.27', '1.33']) {
    test(`kubectl ${version}: completions 3, parallelism 2 of sh -c 'exit 0' completes and wait returns`, async () => {
      const ns = `jobs-${version.replace('.', '-')}`;
      const kc = cp.kubeconfigPath;
      assert.equal((await kubectl(kc, ['create', 'namespace', ns], { version })).code, 0);
      const manifest = {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'three', namespace: ns },
        spec: {
          completions: 3,
          parallelism: 2,
          template: {
            spec: {
              restartPolicy: 'Never',
              containers: [{ name: 'c', image: 'busybox', command: ['sh', '-c', 'exit 0'] }],
            },
          },
        },
      };
      const applied = await kubectl(kc, ['apply', '-f', '-'], { version, input: JSON.stringify(manifest) });
      assert.equal(applied.code, 0, applied.stderr);
      const wait = await kubectl(kc, ['-n', ns, 'wait', '--for=condition=complete', 'job/three', '--timeout=30s'], {
        version,
      });
      assert.equal(wait.code, 0, wait.stderr);
      assert.equal(wait.stdout.trim(), 'job.batch/three condition met');

      const j = job(ns, 'three')!;
      assert.equal(j.status.succeeded, 3);
      assert.equal(j.status.active, undefined);
      assert.equal(j.status.ready, 0);
      assert.equal(j.status.terminating, 0);
      assert.deepEqual(j.status.uncountedTerminatedPods, {});
      assert.ok(j.status.startTime && j.status.completionTime);
      assert.deepEqual(
        j.status.conditions!.map((c) => [c.type, c.status, c.reason, c.message]),
        [
          ['SuccessCriteriaMet', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods'],
          ['Complete', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods'],
        ],
      );
      const pods = podsOf(ns, 'three');
      assert.equal(pods.length, 3);
      for (const p of pods) {
        const meta = p.metadata as JsonObject;
        const labels = meta.labels as Record<string, string>;
        assert.equal(labels['batch.kubernetes.io/job-name'], 'three');
        assert.equal(labels['batch.kubernetes.io/controller-uid'], j.metadata.uid);
        assert.equal(labels['controller-uid'], j.metadata.uid);
        assert.deepEqual(meta.ownerReferences, [
          {
            apiVersion: 'batch/v1',
            kind: 'Job',
            name: 'three',
            uid: j.metadata.uid,
            controller: true,
            blockOwnerDeletion: true,
          },
        ]);
        // Counted: the tracking finalizer is gone.
        assert.equal(meta.finalizers, undefined);
        assert.equal((p.status as JsonObject).phase, 'Succeeded');
      }
      const got = await kubectl(kc, ['-n', ns, 'get', 'job', 'three', '--no-headers'], { version });
      assert.match(got.stdout, /^three\s+(Complete\s+)?3\/3\s+\S+\s+\S+/);

      // Cascading delete takes the pods.
      const del = await kubectl(kc, ['-n', ns, 'delete', 'job', 'three'], { version });
      assert.equal(del.code, 0, `delete: ${del.stderr}`);
      await eventually(() => podsOf(ns, 'three').length === 0, { what: 'job pods deleted' });
    });
  }

  test('a Job of `false` with backoffLimit 1 fails with BackoffLimitExceeded', async () => {
    const kc = cp.kubeconfigPath;
    const manifest = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'fails', namespace: 'default' },
      spec: {
        backoffLimit: 1,
        template: {
          spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', command: ['false'] }] },
        },
      },
    };
    assert.equal((await kubectl(kc, ['apply', '-f', '-'], { input: JSON.stringify(manifest) })).code, 0);
    const j = await found(
      () => {
        const x = job('default', 'fails');
        return condition(x, 'Failed')?.status === 'True' ? x : undefined;
      },
      { what: 'Job Failed' },
    );
    assert.equal(j.status.failed, 2);
    assert.equal(j.status.succeeded, undefined);
    assert.deepEqual(
      j.status.conditions!.map((c) => [c.type, c.status, c.reason, c.message]),
      [
        ['FailureTarget', 'True', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
        ['Failed', 'True', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
      ],
    );
    assert.equal(j.status.completionTime, undefined);
    assert.equal(podsOf('default', 'fails').length, 2);
    const wait = await kubectl(kc, ['wait', '--for=condition=failed', 'job/fails', '--timeout=10s']);
    assert.equal(wait.code, 0, wait.stderr);
  });

  for (const version of ['1.27', '1.33']) {
    test(`kubectl ${version} create job x --image=busybox -- sh -c 'exit 0' completes`, async () => {
      const name = `created-${version.replace('.', '-')}`;
      const kc = cp.kubeconfigPath;
      const r = await kubectl(kc, ['create', 'job', name, '--image=busybox', '--', 'sh', '-c', 'exit 0'], { version });
      assert.equal(r.code, 0, r.stderr);
      const wait = await kubectl(kc, ['wait', '--for=condition=complete', `job/${name}`, '--timeout=30s'], { version });
      assert.equal(wait.code, 0, wait.stderr);
      assert.equal(job('default', name)!.status.succeeded, 1);
    });
  }

  test('suspend deletes active pods and resume restarts the Job', async () => {
    const kc = cp.kubeconfigPath;
    const manifest = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'pausable', namespace: 'default' },
      spec: {
        template: {
          spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', command: ['sleep', '3600'] }] },
        },
      },
    };
    assert.equal((await kubectl(kc, ['apply', '-f', '-'], { input: JSON.stringify(manifest) })).code, 0);
    await eventually(() => job('default', 'pausable')?.status.active === 1, { what: 'one active pod' });
    const patch = await kubectl(kc, ['patch', 'job', 'pausable', '--type=merge', '-p', '{"spec":{"suspend":true}}']);
    assert.equal(patch.code, 0, patch.stderr);
    const j = await found(
      () => {
        const x = job('default', 'pausable');
        return condition(x, 'Suspended')?.status === 'True' && !x!.status.active ? x : undefined;
      },
      { what: 'suspended' },
    );
    assert.equal(condition(j, 'Suspended')?.reason, 'JobSuspended');
    assert.equal(j.status.startTime, undefined);
    assert.equal(j.status.failed, undefined, 'pods deleted for suspension are not failures');
    await kubectl(kc, ['patch', 'job', 'pausable', '--type=merge', '-p', '{"spec":{"suspend":false}}']);
    const resumed = await found(
      () => {
        const x = job('default', 'pausable');
        return x?.status.active === 1 && condition(x, 'Suspended')?.status === 'False' ? x : undefined;
      },
      { what: 'resumed' },
    );
    assert.equal(condition(resumed, 'Suspended')?.reason, 'JobResumed');
  });

  test('activeDeadlineSeconds fails the Job with DeadlineExceeded', async () => {
    const kc = cp.kubeconfigPath;
    const manifest = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'late', namespace: 'default' },
      spec: {
        activeDeadlineSeconds: 1,
        template: {
          spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', command: ['sleep', '3600'] }] },
        },
      },
    };
    assert.equal((await kubectl(kc, ['apply', '-f', '-'], { input: JSON.stringify(manifest) })).code, 0);
    const j = await found(
      () => {
        const x = job('default', 'late');
        return condition(x, 'Failed')?.status === 'True' ? x : undefined;
      },
      { what: 'DeadlineExceeded' },
    );
    assert.equal(condition(j, 'Failed')?.reason, 'DeadlineExceeded');
    assert.equal(condition(j, 'Failed')?.message, 'Job was active longer than specified deadline');
  });
});
