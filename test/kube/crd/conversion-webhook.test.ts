// CRD conversion webhooks (spec.conversion.strategy Webhook): every object that crosses versions
// goes through a ConversionReview posted to a real HTTPS webhook on loopback, and the answer is
// checked as apiextensions-apiserver checks it. Error texts are kube's, from
// staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/conversion/webhook_converter.go
// (Convert, getConvertedObjectsFromResponse, validateConvertedObject), served as kube's handlers
// serve a plain error: 500 with no reason (responsewriters/status.go ErrorToAPIStatus); a watch
// ends with an ERROR event carrying an InternalError (storage/etcd3/watcher.go transformErrorToEvent).
import { after, afterEach, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { createServer } from 'node:net';
import type { JsonObject } from '../../../src/apimachinery/meta/index.ts';
import { startTestCluster, type TestCluster } from '../../helpers/control-plane.ts';
import { call } from '../../helpers/https.ts';
import { kubectl } from '../../helpers/kubectl.ts';
import { runPython } from '../../helpers/python.ts';
import { waitFor } from '../../helpers/wait.ts';
import { startConversionWebhook, type ConversionWebhook } from './conversion-webhook-server.ts';

const GROUP = 'conv.example.com';
const NS = 'default';
const V1 = `/apis/${GROUP}/v1/namespaces/${NS}/widgets`;
const V1ALPHA1 = `/apis/${GROUP}/v1alpha1/namespaces/${NS}/widgets`;

let cp: TestCluster;
let hook: ConversionWebhook;

function crd(url: string, caBundle: string): JsonObject {
  const status = { type: 'object', properties: { ready: { type: 'integer' } } };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      conversion: {
        strategy: 'Webhook',
        webhook: { clientConfig: { url, caBundle }, conversionReviewVersions: ['v1', 'v1beta1'] },
      },
      versions: [
        {
          name: 'v1alpha1',
          served: true,
          storage: false,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', properties: { size: { type: 'string' }, color: { type: 'string' } } },
                status,
              },
            },
          },
        },
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', properties: { replicas: { type: 'integer' }, color: { type: 'string' } } },
                status,
              },
            },
          },
        },
      ],
    },
  };
}

function widget(version: 'v1' | 'v1alpha1', name: string, spec: JsonObject): JsonObject {
  return { apiVersion: `${GROUP}/${version}`, kind: 'Widget', metadata: { name }, spec };
}

/** The object as storage holds it. */
function stored(name: string): JsonObject | undefined {
  const s = cp.internals.storage.get(`/${GROUP}/widgets/${NS}/${name}`);
  return s ? (JSON.parse(s.json) as JsonObject) : undefined;
}

const specOf = (o: JsonObject) => o.spec as JsonObject;

before(async () => {
  cp = await startTestCluster();
  hook = await startConversionWebhook();
  const r = await call(
    cp,
    'POST',
    '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
    crd(hook.url, hook.caBundle),
  );
  assert.equal(r.code, 201, r.text);
  await waitFor(async () => (await call(cp, 'GET', V1ALPHA1)).code === 200, 'widgets served');
});
after(async () => {
  await hook?.close();
  await cp?.stop();
});
afterEach(() => {
  hook.misbehave = 'none';
  hook.delays.clear();
  hook.reviews.length = 0;
});

test('a create in v1alpha1 is stored in v1 and answered in v1alpha1; v1 reads need no webhook', async () => {
  const r = await call(cp, 'POST', V1ALPHA1, widget('v1alpha1', 'create-alpha', { size: '3', color: 'red' }));
  assert.equal(r.code, 201, r.text);
  assert.equal(r.json.apiVersion, `${GROUP}/v1alpha1`);
  assert.deepEqual(specOf(r.json), { color: 'red', size: '3' });
  assert.deepEqual(stored('create-alpha')?.apiVersion, `${GROUP}/v1`);
  assert.deepEqual(specOf(stored('create-alpha')!), { color: 'red', replicas: 3 });
  // To storage, then back for the answer (kube's storage codec encodes and decodes).
  assert.deepEqual(
    hook.reviews.map((x) => [x.desiredAPIVersion, x.objects]),
    [
      [`${GROUP}/v1`, ['create-alpha@conv.example.com/v1alpha1']],
      [`${GROUP}/v1alpha1`, ['create-alpha@conv.example.com/v1']],
    ],
  );
  // The request as kube sends it: the first version of conversionReviewVersions it speaks, with
  // the empty response struct Go serializes beside the request.
  assert.equal(hook.reviews[0].apiVersion, 'apiextensions.k8s.io/v1');
  assert.deepEqual(hook.reviews[0].response, { uid: '', convertedObjects: null, result: { metadata: {} } });

  hook.reviews.length = 0;
  const v1 = await call(cp, 'GET', `${V1}/create-alpha`);
  assert.equal(v1.code, 200, v1.text);
  assert.deepEqual(specOf(v1.json), { color: 'red', replicas: 3 });
  assert.equal(hook.reviews.length, 0);
});

test('an object created in v1 reads in v1alpha1 through kubectl and the Python client', async () => {
  const r = await call(cp, 'POST', V1, widget('v1', 'create-v1', { replicas: 5 }));
  assert.equal(r.code, 201, r.text);
  assert.equal(hook.reviews.length, 0, 'a write in the storage version converts nothing');

  const k = await kubectl(cp.kubeconfigPath, ['get', `widgets.v1alpha1.${GROUP}`, 'create-v1', '-o', 'json']);
  assert.equal(k.code, 0, k.stderr);
  const got = JSON.parse(k.stdout) as JsonObject;
  assert.equal(got.apiVersion, `${GROUP}/v1alpha1`);
  assert.deepEqual(specOf(got), { size: '5' });
  // The Table kubectl asks for by default is built from the converted object.
  const table = await kubectl(cp.kubeconfigPath, ['get', `widgets.v1alpha1.${GROUP}`, 'create-v1', '--no-headers']);
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /^create-v1\s/);

  const py = await runPython(
    cp.kubeconfigPath,
    `
import json, sys
from kubernetes import client, config
config.load_kube_config(sys.argv[1])
api = client.CustomObjectsApi()
o = api.get_namespaced_custom_object("${GROUP}", "v1alpha1", "${NS}", "widgets", "create-v1")
print(json.dumps({"apiVersion": o["apiVersion"], "spec": o["spec"]}))
`,
  );
  assert.equal(py.code, 0, py.stderr);
  assert.deepEqual(py.json(), { apiVersion: `${GROUP}/v1alpha1`, spec: { size: '5' } });
});

test('a list in another version is converted in one review; items already in it are not sent', async () => {
  for (const n of ['list-a', 'list-b', 'list-c']) {
    assert.equal((await call(cp, 'POST', V1, widget('v1', n, { replicas: 7 }))).code, 201);
  }
  hook.reviews.length = 0;
  const k = await kubectl(cp.kubeconfigPath, ['get', `widgets.v1alpha1.${GROUP}`, '-o', 'json']);
  assert.equal(k.code, 0, k.stderr);
  const list = JSON.parse(k.stdout) as { items: JsonObject[] };
  const listed = list.items.filter((i) => String((i.metadata as JsonObject).name).startsWith('list-'));
  assert.deepEqual(
    listed.map((i) => [i.apiVersion, specOf(i).size]),
    [
      [`${GROUP}/v1alpha1`, '7'],
      [`${GROUP}/v1alpha1`, '7'],
      [`${GROUP}/v1alpha1`, '7'],
    ],
  );
  assert.equal(hook.reviews.length, 1, JSON.stringify(hook.reviews));
  assert.equal(hook.reviews[0].objects.length, list.items.length);

  hook.reviews.length = 0;
  const v1 = await call(cp, 'GET', V1);
  assert.equal(v1.code, 200, v1.text);
  assert.equal(hook.reviews.length, 0, 'every item is stored in v1 already');
});

/** A raw watch: its events as they arrive, and whether the server ended it. */
function watch(path: string): { events: JsonObject[]; ended: () => boolean; stop: () => void } {
  const events: JsonObject[] = [];
  let ended = false;
  let buffer = '';
  const req = request(`${cp.url}${path}`, { ca: cp.caPem, headers: { Authorization: `Bearer ${cp.token}` } }, (res) => {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        events.push(JSON.parse(buffer.slice(0, nl)) as JsonObject);
        buffer = buffer.slice(nl + 1);
      }
    });
    res.on('end', () => (ended = true));
  });
  req.on('error', () => (ended = true));
  req.end();
  return { events, ended: () => ended, stop: () => req.destroy() };
}

test('a watch in another version gets converted events, in order, even when a conversion is slow', async () => {
  const rv = String(((await call(cp, 'GET', V1)).json.metadata as JsonObject).resourceVersion);
  const w = watch(`${V1ALPHA1}?watch=true&resourceVersion=${rv}&labelSelector=test%3Dwatch`);
  try {
    await waitFor(() => cp.internals.watches.size > 0, 'the watch to open');
    hook.delays.set('watch-1', 300);
    for (const n of ['watch-1', 'watch-2', 'watch-3']) {
      const body = { ...widget('v1', n, { replicas: 2 }), metadata: { name: n, labels: { test: 'watch' } } };
      assert.equal((await call(cp, 'POST', V1, body)).code, 201);
    }
    const patched = await call(
      cp,
      'PATCH',
      `${V1}/watch-1`,
      { spec: { replicas: 4 } },
      {
        'Content-Type': 'application/merge-patch+json',
      },
    );
    assert.equal(patched.code, 200, patched.text);
    await waitFor(() => w.events.length >= 4, 'four events');
    assert.deepEqual(
      w.events.map((e) => {
        const o = e.object as JsonObject;
        return [e.type, (o.metadata as JsonObject).name, o.apiVersion, specOf(o).size];
      }),
      [
        ['ADDED', 'watch-1', `${GROUP}/v1alpha1`, '2'],
        ['ADDED', 'watch-2', `${GROUP}/v1alpha1`, '2'],
        ['ADDED', 'watch-3', `${GROUP}/v1alpha1`, '2'],
        ['MODIFIED', 'watch-1', `${GROUP}/v1alpha1`, '4'],
      ],
    );
  } finally {
    w.stop();
  }
});

test('a failing conversion ends a watch with an ERROR event', async () => {
  const rv = String(((await call(cp, 'GET', V1)).json.metadata as JsonObject).resourceVersion);
  const w = watch(`${V1ALPHA1}?watch=true&resourceVersion=${rv}&labelSelector=test%3Dwatch-fail`);
  try {
    await waitFor(() => cp.internals.watches.size > 0, 'the watch to open');
    hook.misbehave = 'failure';
    const body = {
      ...widget('v1', 'watch-fail', { replicas: 1 }),
      metadata: { name: 'watch-fail', labels: { test: 'watch-fail' } },
    };
    assert.equal((await call(cp, 'POST', V1, body)).code, 201);
    await waitFor(() => w.ended(), 'the watch to end');
    const message = `conversion webhook for ${GROUP}/v1, Kind=Widget failed: size is not a number`;
    assert.deepEqual(w.events, [
      {
        type: 'ERROR',
        object: {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: `Internal error occurred: ${message}`,
          reason: 'InternalError',
          details: { causes: [{ message }] },
          code: 500,
        },
      },
    ]);
  } finally {
    w.stop();
  }
});

test('merge patch, server-side apply and the status subresource in the non-storage version', async () => {
  assert.equal((await call(cp, 'POST', V1, widget('v1', 'writes', { replicas: 1, color: 'blue' }))).code, 201);
  const p = await call(
    cp,
    'PATCH',
    `${V1ALPHA1}/writes`,
    { spec: { size: '8' } },
    {
      'Content-Type': 'application/merge-patch+json',
    },
  );
  assert.equal(p.code, 200, p.text);
  assert.deepEqual(specOf(p.json), { color: 'blue', size: '8' });
  assert.deepEqual(specOf(stored('writes')!), { color: 'blue', replicas: 8 });

  const manifest = JSON.stringify(widget('v1alpha1', 'writes', { size: '9', color: 'blue' }));
  const k = await kubectl(cp.kubeconfigPath, ['apply', '--server-side', '--force-conflicts', '-f', '-', '-o', 'json'], {
    input: manifest,
  });
  assert.equal(k.code, 0, k.stderr);
  assert.deepEqual(specOf(JSON.parse(k.stdout) as JsonObject), { color: 'blue', size: '9' });
  assert.deepEqual(specOf(stored('writes')!), { color: 'blue', replicas: 9 });

  const current = await call(cp, 'GET', `${V1ALPHA1}/writes`);
  const s = await call(cp, 'PUT', `${V1ALPHA1}/writes/status`, { ...current.json, status: { ready: 9 } });
  assert.equal(s.code, 200, s.text);
  assert.equal(s.json.apiVersion, `${GROUP}/v1alpha1`);
  assert.deepEqual(stored('writes')!.status, { ready: 9 });
  assert.deepEqual(specOf(stored('writes')!), { color: 'blue', replicas: 9 });

  // A dry run goes to storage form and back, as kube's dry-run storage encodes and decodes.
  hook.reviews.length = 0;
  const dry = await call(cp, 'POST', `${V1ALPHA1}?dryRun=All`, widget('v1alpha1', 'dry', { size: '4' }));
  assert.equal(dry.code, 201, dry.text);
  assert.deepEqual(specOf(dry.json), { size: '4' });
  assert.equal(hook.reviews.length, 2);
  assert.equal(stored('dry'), undefined);

  const d = await call(cp, 'DELETE', `${V1ALPHA1}/writes`);
  assert.equal(d.code, 200, d.text);
  assert.equal(d.json.apiVersion, `${GROUP}/v1alpha1`);
  assert.deepEqual(specOf(d.json), { color: 'blue', size: '9' });
  assert.equal(stored('writes'), undefined);
});

test('a webhook that answers wrongly fails the request with kube error, and nothing is written', async () => {
  const cases: Array<[ConversionWebhook['misbehave'], RegExp | string]> = [
    [
      'wrong-uid',
      /^conversion webhook for conv\.example\.com\/v1alpha1, Kind=Widget failed: expected response\.uid="[0-9a-f-]{36}", got "not-the-request-uid"$/,
    ],
    ['wrong-count', `conversion webhook for ${GROUP}/v1alpha1, Kind=Widget returned 2 objects, expected 1`],
    [
      'wrong-apiVersion',
      `conversion webhook for ${GROUP}/v1alpha1, Kind=Widget returned invalid object at index 0: invalid groupVersion (expected ${GROUP}/v1, received ${GROUP}/v1alpha1)`,
    ],
    [
      'changed-name',
      `conversion webhook for ${GROUP}/v1alpha1, Kind=Widget returned invalid object: must have the same name: bad-changed-name != bad-changed-name-renamed`,
    ],
    ['failure', `conversion webhook for ${GROUP}/v1alpha1, Kind=Widget failed: size is not a number`],
  ];
  for (const [misbehave, expected] of cases) {
    hook.misbehave = misbehave;
    const name = `bad-${misbehave.toLowerCase()}`;
    const r = await call(cp, 'POST', V1ALPHA1, widget('v1alpha1', name, { size: '2' }));
    assert.equal(r.code, 500, `${misbehave}: ${r.text}`);
    assert.equal(r.json.reason, undefined, 'a plain error has no reason (StatusReasonUnknown)');
    if (typeof expected === 'string') assert.equal(r.json.message, expected);
    else assert.match(String(r.json.message), expected);
    assert.equal(stored(name), undefined, `${misbehave}: nothing stored`);
  }

  // kubectl prints a Status without a reason as "Error from server: <message>".
  hook.misbehave = 'none';
  assert.equal((await call(cp, 'POST', V1, widget('v1', 'bad-read', { replicas: 2 }))).code, 201);
  hook.misbehave = 'wrong-count';
  const k = await kubectl(cp.kubeconfigPath, ['get', `widgets.v1alpha1.${GROUP}`, 'bad-read']);
  assert.notEqual(k.code, 0);
  assert.equal(
    k.stderr.trim(),
    `Error from server: conversion webhook for ${GROUP}/v1, Kind=Widget returned 2 objects, expected 1`,
  );

  // A list counts its items from 1 once past the first check (kube moves its index on before them).
  hook.misbehave = 'wrong-apiVersion';
  const l = await call(cp, 'GET', V1ALPHA1);
  assert.equal(l.code, 500);
  assert.equal(
    l.json.message,
    `conversion webhook for ${GROUP}/v1alpha1, Kind=WidgetList returned invalid converted object at index 1: invalid groupVersion (expected ${GROUP}/v1alpha1, received ${GROUP}/v1)`,
  );
});

test('a webhook that cannot be reached fails reads in other versions; the storage version still serves', async () => {
  const closed = await new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
  assert.equal((await call(cp, 'POST', V1, widget('v1', 'unreachable', { replicas: 2 }))).code, 201);
  const name = `widgets.${GROUP}`;
  const current = await call(cp, 'GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
  const moved = structuredClone(current.json);
  const spec = moved.spec as JsonObject;
  const url = `https://127.0.0.1:${closed}/convert`;
  ((spec.conversion as JsonObject).webhook as JsonObject).clientConfig = { url, caBundle: hook.caBundle };
  const u = await call(cp, 'PUT', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`, moved);
  assert.equal(u.code, 200, u.text);
  try {
    const r = await call(cp, 'GET', `${V1ALPHA1}/unreachable`);
    assert.equal(r.code, 500, r.text);
    assert.equal(
      r.json.message,
      `conversion webhook for ${GROUP}/v1, Kind=Widget failed: Post "${url}?timeout=30s": dial tcp 127.0.0.1:${closed}: connect: connection refused`,
    );
    assert.equal((await call(cp, 'GET', `${V1}/unreachable`)).code, 200);
  } finally {
    const back = await call(cp, 'GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
    const restored = structuredClone(back.json);
    ((restored.spec as JsonObject).conversion as JsonObject).webhook = (
      (current.json.spec as JsonObject).conversion as JsonObject
    ).webhook;
    assert.equal(
      (await call(cp, 'PUT', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`, restored)).code,
      200,
    );
  }
});

test('a webhook addressed by Service speaks v1beta1 when the CRD lists it first', async () => {
  assert.equal((await call(cp, 'POST', '/api/v1/namespaces', { metadata: { name: 'webhooks' } })).code, 201);
  const svc = await call(cp, 'POST', '/api/v1/namespaces/webhooks/services', {
    metadata: { name: 'conversion' },
    spec: { ports: [{ name: 'https', port: 443, targetPort: hook.port }] },
  });
  assert.equal(svc.code, 201, svc.text);
  const ep = await call(cp, 'POST', '/api/v1/namespaces/webhooks/endpoints', {
    metadata: { name: 'conversion' },
    subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: hook.port }] }],
  });
  assert.equal(ep.code, 201, ep.text);
  const gadgets = crd(hook.url, hook.caBundle);
  const spec = gadgets.spec as JsonObject;
  (gadgets.metadata as JsonObject).name = `gadgets.${GROUP}`;
  spec.names = { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' };
  spec.conversion = {
    strategy: 'Webhook',
    webhook: {
      clientConfig: {
        service: { namespace: 'webhooks', name: 'conversion', path: '/convert', port: 443 },
        caBundle: hook.caBundle,
      },
      conversionReviewVersions: ['v1beta1', 'v1'],
    },
  };
  const r = await call(cp, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', gadgets);
  assert.equal(r.code, 201, r.text);
  const GADGETS = `/apis/${GROUP}/v1alpha1/namespaces/${NS}/gadgets`;
  await waitFor(async () => (await call(cp, 'GET', GADGETS)).code === 200, 'gadgets served');
  hook.reviews.length = 0;
  // kube checks neither the kind nor the uid of a v1beta1 answer.
  hook.misbehave = 'wrong-uid';
  const c = await call(cp, 'POST', GADGETS, { ...widget('v1alpha1', 'by-service', { size: '6' }), kind: 'Gadget' });
  assert.equal(c.code, 201, c.text);
  assert.deepEqual(specOf(c.json), { size: '6' });
  assert.deepEqual(
    hook.reviews.map((x) => x.apiVersion),
    ['apiextensions.k8s.io/v1beta1', 'apiextensions.k8s.io/v1beta1'],
  );
  const s = cp.internals.storage.get(`/${GROUP}/gadgets/${NS}/by-service`);
  assert.deepEqual(specOf(JSON.parse(s!.json) as JsonObject), { replicas: 6 });
});
