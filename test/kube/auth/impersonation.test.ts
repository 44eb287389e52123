// Impersonation as kube-apiserver's WithImpersonation filter
// (kubernetes/apiserver pkg/endpoints/filters/impersonation.go): what the admin may assume with
// kubectl --as/--as-group, the 403 for a user the authorizer does not let impersonate, the
// plain-text 500 for groups without a user, and service accounts' implied groups.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import type { JsonObject } from '../../../src/apimachinery/meta/index.ts';
import { StatusError } from '../../../src/apimachinery/errors/index.ts';
import { impersonate } from '../../../src/kube/auth/impersonation.ts';
import type { Attributes, Authorizer } from '../../../src/kube/auth/types.ts';
import type { UserInfo } from '../../../src/kube/auth/user.ts';
import { startTestCluster, type TestCluster } from '../../helpers/control-plane.ts';
import { call } from '../../helpers/https.ts';
import { kubectl } from '../../helpers/kubectl.ts';

let cp: TestCluster;

before(async () => {
  cp = await startTestCluster();
});

after(async () => {
  await cp?.stop();
});

function whoAmI(headers: Record<string, string>) {
  return call(
    cp,
    'POST',
    '/apis/authentication.k8s.io/v1/selfsubjectreviews',
    { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    headers,
  );
}

describe('the cluster admin (system:masters) impersonating', () => {
  for (const version of ['1.27', '1.33']) {
    test(`kubectl ${version} --as --as-group`, async () => {
      const r = await kubectl(cp.kubeconfigPath, ['auth', 'whoami', '--as=jane', '--as-group=devs', '-o', 'json'], {
        version,
      });
      assert.equal(r.code, 0, r.stderr);
      const review = JSON.parse(r.stdout) as JsonObject;
      assert.deepEqual((review.status as JsonObject).userInfo, {
        username: 'jane',
        groups: ['devs', 'system:authenticated'],
      });
    });
  }

  test('a service account gets its groups unless groups are given; uid and extras pass through', async () => {
    const sa = await whoAmI({ 'Impersonate-User': 'system:serviceaccount:kube-system:robot' });
    assert.equal(sa.code, 201, sa.text);
    assert.deepEqual((sa.json.status as JsonObject).userInfo, {
      username: 'system:serviceaccount:kube-system:robot',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
    });
    const full = await whoAmI({
      'Impersonate-User': 'system:serviceaccount:kube-system:robot',
      'Impersonate-Group': 'ops',
      'Impersonate-Uid': 'u-1',
      'Impersonate-Extra-Scopes': 'view',
    });
    assert.equal(full.code, 201, full.text);
    assert.deepEqual((full.json.status as JsonObject).userInfo, {
      username: 'system:serviceaccount:kube-system:robot',
      uid: 'u-1',
      groups: ['ops', 'system:authenticated'],
      extra: { scopes: ['view'] },
    });
  });

  test('groups without a user: a plain-text 500 (responsewriters.InternalError)', async () => {
    const r = await call(cp, 'GET', '/api/v1/namespaces', undefined, { 'Impersonate-Group': 'devs' });
    assert.equal(r.code, 500);
    assert.equal(
      r.text,
      'Internal Server Error: "/api/v1/namespaces": requested [{Group  devs    }] without impersonating a user\n',
    );
  });
});

describe('impersonation the authorizer refuses', () => {
  const alice: UserInfo = { username: 'alice', groups: ['system:authenticated'] };
  const asked: Attributes[] = [];
  /** Allows alice to impersonate group "devs" only. */
  const authorizer: Authorizer = {
    authorize(a) {
      asked.push(a);
      return { allowed: a.resource === 'groups' && a.name === 'devs', reason: '' };
    },
  };
  const request = (headers: Record<string, string | string[]>) =>
    ({
      url: '/api/v1/pods',
      headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
      headersDistinct: Object.fromEntries(
        Object.entries(headers).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v : [v]]),
      ),
    }) as unknown as IncomingMessage;
  const url = new URL('https://localhost/api/v1/pods');

  test('a user: 403 with kube-apiserver message', () => {
    assert.throws(
      () => impersonate(request({ 'Impersonate-User': 'bob' }), url, alice, authorizer),
      (e: unknown) =>
        e instanceof StatusError &&
        e.code === 403 &&
        e.message ===
          'users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
  });

  test('a service account is checked as serviceaccounts in its namespace; uids and extras in authentication.k8s.io', () => {
    asked.length = 0;
    assert.throws(
      () => impersonate(request({ 'Impersonate-User': 'system:serviceaccount:ns1:robot' }), url, alice, authorizer),
      (e: unknown) =>
        e instanceof StatusError &&
        e.message ===
          'serviceaccounts "robot" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns1"',
    );
    const permissive: Authorizer = {
      authorize(a) {
        asked.push(a);
        return { allowed: true, reason: '' };
      },
    };
    asked.length = 0;
    impersonate(
      request({ 'Impersonate-User': 'bob', 'Impersonate-Uid': 'u-9', 'Impersonate-Extra-Reason': ['a', 'b'] }),
      url,
      alice,
      permissive,
    );
    assert.deepEqual(
      asked.map((a) => [a.verb, a.apiGroup, a.resource, a.subresource, a.name]),
      [
        ['impersonate', '', 'users', '', 'bob'],
        ['impersonate', 'authentication.k8s.io', 'userextras', 'reason', 'a'],
        ['impersonate', 'authentication.k8s.io', 'userextras', 'reason', 'b'],
        ['impersonate', 'authentication.k8s.io', 'uids', '', 'u-9'],
      ],
    );
  });

  test('every requested group is checked: one not allowed refuses the whole request', () => {
    assert.throws(
      () =>
        impersonate(
          request({ 'Impersonate-User': 'alice', 'Impersonate-Group': ['devs', 'admins'] }),
          url,
          alice,
          // alice may be herself and in devs, not in admins
          { authorize: (a) => ({ allowed: a.name === 'alice' || a.name === 'devs', reason: '' }) },
        ),
      (e: unknown) =>
        e instanceof StatusError &&
        e.message ===
          'groups "admins" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope',
    );
  });

  test('through the API server, a token user without `impersonate` gets the 403', async () => {
    const denyingCluster = await startTestCluster({ users: [{ token: 'alice-token', user: alice }] });
    try {
      const r = await call(denyingCluster, 'GET', '/api/v1/namespaces', undefined, {
        Authorization: 'Bearer alice-token',
        'Impersonate-User': 'bob',
      });
      assert.equal(r.code, 403);
      assert.equal(
        r.json.message,
        'users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope',
      );
    } finally {
      await denyingCluster.stop();
    }
  });
});
