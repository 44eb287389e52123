// Conversion webhooks: the hub-and-spoke scheme, and the ConversionReview the API server POSTs to
// "/convert" (shape: staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1/types.go;
// the same uid back, convertedObjects in desiredAPIVersion, result.status Success or Failure).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../../src/runtime/client/types.ts';
import { customResource } from '../../../src/runtime/client/resources.ts';
import {
  ConversionScheme,
  WebhookServer,
  conversionWebhook,
  validatingHandler,
} from '../../../src/runtime/webhook/index.ts';
import type { ConversionReview, Convertible } from '../../../src/runtime/webhook/index.ts';
import { issue, makeCa } from './certs.ts';
import { post } from './post.ts';

const GROUP = 'batch.example.com';
// The hub (v1) names the schedule `schedule`; v1alpha1 called it `cron`; v2 splits it into fields.
interface CronJobV1 extends KubeObject {
  spec: { schedule: string; suspend?: boolean };
}
interface CronJobV1alpha1 extends KubeObject {
  spec: { cron: string; suspend?: boolean };
}
interface CronJobV2 extends KubeObject {
  spec: { schedule: { minute: string; rest: string }; suspend?: boolean };
}

const v1 = customResource(GROUP, 'v1', 'CronJob', 'cronjobs', true);
const v1alpha1 = customResource(GROUP, 'v1alpha1', 'CronJob', 'cronjobs', true);
const v2 = customResource(GROUP, 'v2', 'CronJob', 'cronjobs', true);

const alpha: Convertible<CronJobV1alpha1, CronJobV1> = {
  convertTo: ({ spec: { cron, ...rest }, ...obj }) => {
    if (cron === 'explode') throw new Error('spec.cron "explode" has no v1 form');
    return { ...obj, spec: { ...rest, schedule: cron } };
  },
  convertFrom: ({ spec: { schedule, ...rest }, ...obj }) => ({ ...obj, spec: { ...rest, cron: schedule } }),
};

const beta: Convertible<CronJobV2, CronJobV1> = {
  // Returns no metadata on purpose: the scheme carries the source's over.
  convertTo: async (o) =>
    ({ spec: { ...o.spec, schedule: `${o.spec.schedule.minute} ${o.spec.schedule.rest}` } }) as CronJobV1,
  convertFrom: (o) => {
    const [minute, ...rest] = o.spec.schedule.split(' ');
    return { ...o, spec: { ...o.spec, schedule: { minute, rest: rest.join(' ') } } };
  },
};

function scheme(): ConversionScheme {
  return new ConversionScheme().hub(v1).spoke(v1alpha1, alpha).spoke(v2, beta);
}

const meta = {
  name: 'nightly',
  namespace: 'default',
  uid: '5a3c0c9e-0000-4000-8000-000000000001',
  resourceVersion: '42',
  generation: 3,
  labels: { team: 'data' },
  annotations: { note: 'kept' },
  creationTimestamp: '2026-11-26T09:00:00Z',
};

const alphaObj: CronJobV1alpha1 = {
  apiVersion: `${GROUP}/v1alpha1`,
  kind: 'CronJob',
  metadata: meta,
  spec: { cron: '5 * * * *', suspend: true },
};

describe('ConversionScheme', () => {
  it('converts a spoke to the hub and back, keeping metadata', async () => {
    const s = scheme();
    const hub = (await s.convert(alphaObj, `${GROUP}/v1`)) as CronJobV1;
    assert.deepEqual(hub, {
      apiVersion: `${GROUP}/v1`,
      kind: 'CronJob',
      metadata: meta,
      spec: { schedule: '5 * * * *', suspend: true },
    });
    assert.deepEqual(await s.convert(hub, `${GROUP}/v1alpha1`), alphaObj);
  });

  it('converts spoke to spoke through the hub, and leaves an object already in the version alone', async () => {
    const s = scheme();
    const out = (await s.convert(alphaObj, `${GROUP}/v2`)) as CronJobV2;
    assert.equal(out.apiVersion, `${GROUP}/v2`);
    assert.deepEqual(out.spec, { schedule: { minute: '5', rest: '* * * *' }, suspend: true });
    assert.deepEqual(out.metadata, meta);
    const back = (await s.convert(out, `${GROUP}/v1alpha1`)) as CronJobV1alpha1;
    assert.deepEqual(back, alphaObj);
    const same = await s.convert(alphaObj, `${GROUP}/v1alpha1`);
    assert.deepEqual(same, alphaObj);
    assert.notEqual(same, alphaObj);
  });

  it('never lets a converter edit the caller’s object', async () => {
    const s = new ConversionScheme().hub(v1).spoke<CronJobV1alpha1, CronJobV1>(v1alpha1, {
      convertTo: (o) => {
        const spec = o.spec as unknown as Record<string, unknown>;
        spec.schedule = spec.cron;
        delete spec.cron;
        return o as unknown as CronJobV1;
      },
      convertFrom: (o) => o as unknown as CronJobV1alpha1,
    });
    const input = structuredClone(alphaObj);
    await s.convert(input, `${GROUP}/v1`);
    assert.deepEqual(input, alphaObj);
  });

  it('refuses unknown kinds and versions, other groups and a version registered twice', async () => {
    const s = scheme();
    await assert.rejects(
      s.convert({ ...alphaObj, kind: 'Job' }, `${GROUP}/v1`),
      /no conversion registered for Job\.batch\.example\.com/,
    );
    await assert.rejects(
      s.convert(alphaObj, `${GROUP}/v3`),
      /CronJob\.batch\.example\.com has no version v3 \(known: v1, v1alpha1, v2\)/,
    );
    await assert.rejects(s.convert({ ...alphaObj, apiVersion: `${GROUP}/v0` }, `${GROUP}/v1`), /has no version v0/);
    await assert.rejects(
      s.convert(alphaObj, 'other.example.com/v1'),
      /from group "batch.example.com" to group "other.example.com"/,
    );
    assert.throws(() => scheme().spoke(v1alpha1, alpha), /already a spoke/);
    assert.throws(() => new ConversionScheme().spoke(v2, beta).hub(v2), /already a spoke/);
    assert.throws(
      () => scheme().hub(customResource(GROUP, 'v9', 'CronJob', 'cronjobs', true)),
      /already has hub version v1/,
    );
    assert.throws(() => new ConversionScheme().hub(v1).spoke(v1, alpha), /is the hub, not a spoke/);
    assert.equal(s.knows(GROUP, 'v2', 'CronJob'), true);
    assert.equal(s.knows(GROUP, 'v3', 'CronJob'), false);
  });
});

describe('WebhookServer at /convert', () => {
  const ca = makeCa();
  let dir: string;
  const stop = new AbortController();
  let running: Promise<void>;
  let port: number;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'conversion-test-'));
    const pair = issue(ca, 'serving');
    await writeFile(join(dir, 'tls.crt'), pair.certPem);
    await writeFile(join(dir, 'tls.key'), pair.keyPem);
    const server = new WebhookServer({ certDir: dir, port: 0, host: '127.0.0.1' });
    server.register('/convert', conversionWebhook(scheme()));
    server.register(
      '/validate',
      validatingHandler(() => undefined),
    );
    running = server.start(stop.signal);
    port = (await server.address()).port;
  });

  after(async () => {
    stop.abort();
    await running;
    await rm(dir, { recursive: true, force: true });
  });

  const reviewOf = (apiVersion: string, desiredAPIVersion: string, objects: unknown[]) => ({
    apiVersion,
    kind: 'ConversionReview',
    request: { uid: 'conv-1', desiredAPIVersion, objects },
  });

  const convert = async (body: unknown): Promise<ConversionReview> => {
    const res = await post(port, ca.certPem, '/convert', body);
    assert.equal(res.status, 200, res.body);
    return JSON.parse(res.body) as ConversionReview;
  };

  for (const apiVersion of ['apiextensions.k8s.io/v1', 'apiextensions.k8s.io/v1beta1']) {
    it(`answers an ${apiVersion} ConversionReview with every object in the desired version`, async () => {
      const hubObj = await scheme().convert(alphaObj, `${GROUP}/v1`);
      const out = await convert(reviewOf(apiVersion, `${GROUP}/v2`, [alphaObj, hubObj]));
      assert.equal(out.apiVersion, apiVersion);
      assert.equal(out.kind, 'ConversionReview');
      assert.equal(out.response?.uid, 'conv-1');
      assert.deepEqual(out.response?.result, { status: 'Success' });
      assert.equal(out.response?.convertedObjects.length, 2);
      for (const o of out.response?.convertedObjects ?? []) {
        assert.equal(o.apiVersion, `${GROUP}/v2`);
        assert.deepEqual(o.metadata, meta);
        assert.deepEqual(o.spec, { schedule: { minute: '5', rest: '* * * *' }, suspend: true });
      }
    });
  }

  it('answers Failure with a message when a converter throws or a version is unknown', async () => {
    const bad = { ...alphaObj, spec: { cron: 'explode' } };
    const thrown = await convert(reviewOf('apiextensions.k8s.io/v1', `${GROUP}/v1`, [alphaObj, bad]));
    assert.equal(thrown.response?.uid, 'conv-1');
    assert.equal(thrown.response?.result.status, 'Failure');
    assert.equal(
      thrown.response?.result.message,
      `converting CronJob nightly to ${GROUP}/v1: spec.cron "explode" has no v1 form`,
    );
    assert.deepEqual(thrown.response?.convertedObjects, []);
    const unknown = await convert(reviewOf('apiextensions.k8s.io/v1', `${GROUP}/v7`, [alphaObj]));
    assert.equal(unknown.response?.result.status, 'Failure');
    assert.match(unknown.response?.result.message ?? '', /has no version v7/);
    const kindless = await convert(reviewOf('apiextensions.k8s.io/v1', `${GROUP}/v1`, [{ metadata: { name: 'x' } }]));
    assert.match(kindless.response?.result.message ?? '', /no apiVersion or kind/);
  });

  it('refuses malformed bodies with 400 and keeps serving', async () => {
    const bodies: unknown[] = [
      '{not json',
      'null',
      '[]',
      { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'x' } },
      { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview' },
      {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'ConversionReview',
        request: { desiredAPIVersion: 'a/v1', objects: [] },
      },
      { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid: 'u', objects: [] } },
      {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'ConversionReview',
        request: { uid: 'u', desiredAPIVersion: 'a/v1' },
      },
      reviewOf('apiextensions.k8s.io/v1', `${GROUP}/v1`, [null]),
      reviewOf('apiextensions.k8s.io/v1', `${GROUP}/v1`, ['text']),
    ];
    for (const body of bodies) {
      const res = await post(port, ca.certPem, '/convert', body);
      assert.equal(res.status, 400, `${JSON.stringify(body)} → ${res.status} ${res.body}`);
    }
    // An AdmissionReview path does not take a ConversionReview.
    const crossed = await post(port, ca.certPem, '/validate', reviewOf('apiextensions.k8s.io/v1', `${GROUP}/v1`, []));
    assert.equal(crossed.status, 400);
    const out = await convert(reviewOf('apiextensions.k8s.io/v1', `${GROUP}/v1`, []));
    assert.deepEqual(out.response, { uid: 'conv-1', convertedObjects: [], result: { status: 'Success' } });
  });
});
