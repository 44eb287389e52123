import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyDefaults } from '../../../../src/kube/builtins/index.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';

const nginxTemplate = (): JsonObject => ({
  metadata: { labels: { app: 'nginx' } },
  spec: { containers: [{ name: 'nginx', image: 'nginx' }] },
});

/** The pod template as kube-apiserver returns it inside any workload. */
const defaultedTemplate = (): JsonObject => ({
  metadata: { creationTimestamp: null, labels: { app: 'nginx' } },
  spec: {
    containers: [
      {
        image: 'nginx',
        imagePullPolicy: 'Always',
        name: 'nginx',
        resources: {},
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
      },
    ],
    dnsPolicy: 'ClusterFirst',
    restartPolicy: 'Always',
    schedulerName: 'default-scheduler',
    securityContext: {},
    terminationGracePeriodSeconds: 30,
  },
});

function created(group: string, kind: string, o: JsonObject): JsonObject {
  applyDefaults(group, kind, o, 'create');
  return o;
}

describe('workload defaults', () => {
  it('turn `kubectl create deployment nginx --image=nginx` into what kube-apiserver stores', () => {
    const d = created('apps', 'Deployment', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'nginx', namespace: 'default', labels: { app: 'nginx' } },
      spec: { selector: { matchLabels: { app: 'nginx' } }, template: nginxTemplate() },
    });
    assert.deepStrictEqual(d, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'nginx', namespace: 'default', labels: { app: 'nginx' } },
      spec: {
        progressDeadlineSeconds: 600,
        replicas: 1,
        revisionHistoryLimit: 10,
        selector: { matchLabels: { app: 'nginx' } },
        strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' }, type: 'RollingUpdate' },
        template: defaultedTemplate(),
      },
      status: {},
    });
  });

  it('keeps Recreate deployments without rollingUpdate and leaves templates without Pod-only fields', () => {
    const d = created('apps', 'Deployment', {
      spec: { strategy: { type: 'Recreate' }, replicas: 0, template: nginxTemplate() },
    });
    const spec = d.spec as JsonObject;
    assert.deepStrictEqual(spec.strategy, { type: 'Recreate' });
    assert.equal(spec.replicas, 0);
    const tspec = (spec.template as JsonObject).spec as JsonObject;
    for (const podOnly of ['enableServiceLinks', 'priority', 'tolerations', 'serviceAccountName'])
      assert.equal(tspec[podOnly], undefined, podOnly);
  });

  it('ReplicaSet: replicas 1 and status.replicas 0', () => {
    const rs = created('apps', 'ReplicaSet', {
      spec: { selector: { matchLabels: { app: 'nginx' } }, template: nginxTemplate() },
    });
    assert.deepStrictEqual(rs.spec, {
      replicas: 1,
      selector: { matchLabels: { app: 'nginx' } },
      template: defaultedTemplate(),
    });
    assert.deepStrictEqual(rs.status, { replicas: 0 });
  });

  it('DaemonSet: rolling update 1/0, history 10, template generation annotation, zero status', () => {
    const ds = created('apps', 'DaemonSet', {
      metadata: { name: 'ds' },
      spec: { selector: { matchLabels: { app: 'nginx' } }, template: nginxTemplate() },
    });
    assert.deepStrictEqual(ds.spec, {
      selector: { matchLabels: { app: 'nginx' } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
      revisionHistoryLimit: 10,
      template: defaultedTemplate(),
    });
    assert.deepStrictEqual((ds.metadata as JsonObject).annotations, {
      'deprecated.daemonset.template.generation': '1',
    });
    assert.deepStrictEqual(ds.status, {
      currentNumberScheduled: 0,
      desiredNumberScheduled: 0,
      numberMisscheduled: 0,
      numberReady: 0,
    });
  });

  it('StatefulSet: policies, partition, retention and claim templates', () => {
    const sts = created('apps', 'StatefulSet', {
      spec: {
        serviceName: 'web',
        selector: { matchLabels: { app: 'nginx' } },
        template: nginxTemplate(),
        volumeClaimTemplates: [
          {
            metadata: { name: 'www' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
        ],
      },
    });
    assert.deepStrictEqual(sts.spec, {
      serviceName: 'web',
      selector: { matchLabels: { app: 'nginx' } },
      template: defaultedTemplate(),
      podManagementPolicy: 'OrderedReady',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
      replicas: 1,
      revisionHistoryLimit: 10,
      volumeClaimTemplates: [
        {
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          metadata: { name: 'www', creationTimestamp: null },
          spec: {
            accessModes: ['ReadWriteOnce'],
            resources: { requests: { storage: '1Gi' } },
            volumeMode: 'Filesystem',
          },
          status: { phase: 'Pending' },
        },
      ],
    });
    assert.deepStrictEqual(sts.status, { availableReplicas: 0, replicas: 0 });
  });

  it('StatefulSet: an explicit RollingUpdate without rollingUpdate gets no partition', () => {
    const sts = created('apps', 'StatefulSet', {
      spec: { updateStrategy: { type: 'RollingUpdate' }, template: nginxTemplate() },
    });
    assert.deepStrictEqual((sts.spec as JsonObject).updateStrategy, { type: 'RollingUpdate' });
  });

  it('Job: counts, policies, labels and a selector on the uid', () => {
    const job = created('batch', 'Job', {
      metadata: { name: 'pi', uid: 'u-1' },
      spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl:5' }] } } },
    });
    const spec = job.spec as JsonObject;
    assert.equal(spec.completions, 1);
    assert.equal(spec.parallelism, 1);
    assert.equal(spec.backoffLimit, 6);
    assert.equal(spec.completionMode, 'NonIndexed');
    assert.equal(spec.suspend, false);
    assert.equal(spec.podReplacementPolicy, 'TerminatingOrFailed');
    const labels = {
      'batch.kubernetes.io/controller-uid': 'u-1',
      'batch.kubernetes.io/job-name': 'pi',
      'controller-uid': 'u-1',
      'job-name': 'pi',
    };
    assert.deepStrictEqual(((spec.template as JsonObject).metadata as JsonObject).labels, labels);
    assert.deepStrictEqual(spec.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u-1' } });
    assert.deepStrictEqual((job.metadata as JsonObject).labels, labels);
    assert.deepStrictEqual(job.status, {});
  });

  it('Job: parallelism alone leaves completions unset', () => {
    const job = created('batch', 'Job', { spec: { parallelism: 3, template: nginxTemplate() } });
    assert.equal((job.spec as JsonObject).completions, undefined);
  });

  it('CronJob: policies, limits and its job template', () => {
    const cj = created('batch', 'CronJob', {
      spec: { schedule: '* * * * *', jobTemplate: { spec: { template: nginxTemplate() } } },
    });
    const spec = cj.spec as JsonObject;
    assert.equal(spec.concurrencyPolicy, 'Allow');
    assert.equal(spec.suspend, false);
    assert.equal(spec.successfulJobsHistoryLimit, 3);
    assert.equal(spec.failedJobsHistoryLimit, 1);
    assert.deepStrictEqual(spec.jobTemplate, {
      metadata: { creationTimestamp: null },
      spec: { template: defaultedTemplate() },
    });
  });

  it('PodTemplate gets the template defaults', () => {
    const pt = created('', 'PodTemplate', { template: nginxTemplate() });
    assert.deepStrictEqual(pt.template, defaultedTemplate());
  });

  it('resets a client-written workload status on create but not on update', () => {
    const d = { spec: { template: nginxTemplate() }, status: { replicas: 5 } } as JsonObject;
    applyDefaults('apps', 'Deployment', d, 'create');
    assert.deepStrictEqual(d.status, {});
    const u = { spec: { template: nginxTemplate() }, status: { replicas: 5 } } as JsonObject;
    applyDefaults('apps', 'ReplicaSet', u, 'update');
    assert.deepStrictEqual(u.status, { replicas: 5 });
  });
});
