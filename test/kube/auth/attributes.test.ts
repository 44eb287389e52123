// Request → authorizer attributes, as kube-apiserver's RequestInfoFactory derives them
// (kubernetes/apiserver pkg/endpoints/request/requestinfo.go).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requestAttributes } from '../../../src/kube/auth/attributes.ts';
import { ANONYMOUS } from '../../../src/kube/auth/user.ts';

function attrs(method: string, url: string) {
  const a = requestAttributes(method, new URL(url, 'https://localhost'), ANONYMOUS);
  return {
    verb: a.verb,
    resourceRequest: a.resourceRequest,
    apiGroup: a.apiGroup,
    resource: a.resource,
    subresource: a.subresource,
    namespace: a.namespace,
    name: a.name,
  };
}

const r = (verb: string, resource: string, rest: Partial<ReturnType<typeof attrs>> = {}) => ({
  verb,
  resourceRequest: true,
  apiGroup: '',
  resource,
  subresource: '',
  namespace: '',
  name: '',
  ...rest,
});

test('collections: list, watch when watch is anything but false/0, deletecollection', () => {
  assert.deepEqual(attrs('GET', '/api/v1/namespaces/a/pods'), r('list', 'pods', { namespace: 'a' }));
  for (const w of ['1', 'true', 'TRUE', 'yes', ''])
    assert.equal(attrs('GET', `/api/v1/pods?watch=${w}`).verb, 'watch', `watch=${w}`);
  for (const w of ['0', 'false', 'False'])
    assert.equal(attrs('GET', `/api/v1/pods?watch=${w}`).verb, 'list', `watch=${w}`);
  assert.equal(attrs('DELETE', '/api/v1/namespaces/a/pods').verb, 'deletecollection');
  assert.equal(attrs('HEAD', '/api/v1/namespaces/a/pods/p').verb, 'get');
});

test('path verbs: /watch/ and /proxy/ (proxy paths have no subresource)', () => {
  assert.deepEqual(attrs('GET', '/api/v1/watch/namespaces/a/pods'), r('watch', 'pods', { namespace: 'a' }));
  assert.deepEqual(
    attrs('GET', '/api/v1/watch/namespaces/a/pods/p'),
    r('watch', 'pods', { namespace: 'a', name: 'p' }),
  );
  assert.deepEqual(attrs('GET', '/apis/apps/v1/watch/deployments'), r('watch', 'deployments', { apiGroup: 'apps' }));
  assert.deepEqual(
    attrs('GET', '/api/v1/proxy/namespaces/a/pods/p/some/path'),
    r('proxy', 'pods', { namespace: 'a', name: 'p' }),
  );
  // A path watch never takes its name from the field selector.
  assert.equal(attrs('GET', '/api/v1/watch/namespaces/a/pods?fieldSelector=metadata.name%3Dp').name, '');
});

test('field selectors on metadata.name name a list or watch', () => {
  assert.equal(attrs('GET', '/api/v1/namespaces/a/pods?fieldSelector=metadata.name%3Dp').name, 'p');
  assert.equal(attrs('GET', '/api/v1/namespaces/a/pods?watch=1&fieldSelector=metadata.name%3D%3Dp').name, 'p');
  assert.equal(attrs('GET', '/api/v1/namespaces/a/pods?fieldSelector=metadata.name%21%3Dp').name, '');
  assert.equal(attrs('GET', '/api/v1/namespaces/a/pods?fieldSelector=metadata.name%3D..').name, '');
});

test('namespaces: the object, its status and finalize, and namespaced resources', () => {
  assert.deepEqual(attrs('GET', '/api/v1/namespaces/a'), r('get', 'namespaces', { namespace: 'a', name: 'a' }));
  assert.deepEqual(
    attrs('PUT', '/api/v1/namespaces/a/finalize'),
    r('update', 'namespaces', { namespace: 'a', name: 'a', subresource: 'finalize' }),
  );
  assert.deepEqual(
    attrs('GET', '/api/v1/namespaces/a/status'),
    r('get', 'namespaces', { namespace: 'a', name: 'a', subresource: 'status' }),
  );
  assert.deepEqual(
    attrs('POST', '/api/v1/namespaces/a/pods/p/exec'),
    r('create', 'pods', { namespace: 'a', name: 'p', subresource: 'exec' }),
  );
});

test('non-resource requests: verb is the lower-cased method', () => {
  for (const p of ['/', '/api', '/api/v1', '/apis', '/apis/apps', '/apis/apps/v1', '/healthz', '/openapi/v2']) {
    assert.equal(attrs('GET', p).resourceRequest, false, p);
  }
  assert.equal(attrs('HEAD', '/healthz').verb, 'head');
  assert.equal(attrs('OPTIONS', '/api/v1/pods').verb, '');
});
