// TokenRequest (POST serviceaccounts/{name}/token) and the tokens it issues, end to end through the
// API server: kube's validation messages (pkg/apis/authentication/validation/validation.go,
// pkg/registry/core/serviceaccount/storage/token.go), the JWT's claims (pkg/serviceaccount/claims.go)
// and what such a token authenticates as until its pod goes, it expires or the audience differs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey, createVerify, type JsonWebKey } from 'node:crypto';
import type { JsonObject } from '../../../src/apimachinery/meta/index.ts';
import { startTestCluster, type TestCluster } from '../../helpers/control-plane.ts';
import { call, createNamespace } from '../../helpers/https.ts';
import { kubectl } from '../../helpers/kubectl.ts';
import { waitFor } from '../../helpers/wait.ts';

const NS = 'tokens';
const ISSUER = 'https://kubernetes.default.svc.cluster.local';
let cp: TestCluster;
/** The clock tokens are issued and checked by: tests move it forward instead of waiting. */
let offsetMs = 0;

function decode(segment: string): JsonObject {
  return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8')) as JsonObject;
}

function claimsOf(token: string): JsonObject {
  return decode(token.split('.')[1]);
}

const tokenPath = (sa: string) => `/api/v1/namespaces/${NS}/serviceaccounts/${sa}/token`;

async function requestToken(sa: string, spec: JsonObject = {}, metadata: JsonObject = {}) {
  return call(cp, 'POST', tokenPath(sa), {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    metadata,
    spec,
  });
}

/** Who the server says the token is (SelfSubjectReview, which every authenticated user may create). */
function whoAmI(token: string) {
  return call(
    cp,
    'POST',
    '/apis/authentication.k8s.io/v1/selfsubjectreviews',
    { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    { Authorization: `Bearer ${token}` },
  );
}

async function createPod(name: string, serviceAccountName = 'runner'): Promise<JsonObject> {
  const r = await call(cp, 'POST', `/api/v1/namespaces/${NS}/pods`, {
    metadata: { name },
    spec: { serviceAccountName, containers: [{ name: 'c', image: 'busybox' }] },
  });
  assert.equal(r.code, 201, r.text);
  return r.json;
}

const uidOf = (o: JsonObject) => String((o.metadata as JsonObject).uid);

before(async () => {
  cp = await startTestCluster({ clock: { now: () => Date.now() + offsetMs } });
  await createNamespace(cp, NS);
  const r = await call(cp, 'POST', `/api/v1/namespaces/${NS}/serviceaccounts`, { metadata: { name: 'runner' } });
  assert.equal(r.code, 201, r.text);
});

after(async () => {
  await cp?.stop();
});

describe('TokenRequest validation', () => {
  test('expirationSeconds under 10 minutes or over 2^32 is a 422 naming the field', async () => {
    const short = await requestToken('runner', { expirationSeconds: 60 });
    assert.equal(short.code, 422);
    assert.equal(
      short.json.message,
      'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
    );
    const long = await requestToken('runner', { expirationSeconds: 2 ** 32 + 1 });
    assert.equal(long.code, 422);
    assert.equal(
      long.json.message,
      'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds',
    );
  });

  test('a body name other than the URL name is a 422; a missing account a 404', async () => {
    const r = await requestToken('runner', {}, { name: 'other' });
    assert.equal(r.code, 422);
    assert.equal(
      r.json.message,
      'TokenRequest.authentication.k8s.io "runner" is invalid: metadata.name: Invalid value: "other": must match the service account name if specified',
    );
    const missing = await requestToken('ghost');
    assert.equal(missing.code, 404);
    assert.equal(missing.json.message, 'serviceaccounts "ghost" not found');
  });

  test('bound object errors: missing pod 404, other account 400, other kind 400, uid mismatch 409', async () => {
    const ref = (o: JsonObject) => requestToken('runner', { boundObjectRef: o });
    const missing = await ref({ apiVersion: 'v1', kind: 'Pod', name: 'nope' });
    assert.equal(missing.code, 404);
    assert.equal(missing.json.message, 'pods "nope" not found');

    await createPod('other-sa', 'default');
    const other = await ref({ apiVersion: 'v1', kind: 'Pod', name: 'other-sa' });
    assert.equal(other.code, 400);
    assert.equal(
      other.json.message,
      'cannot bind token for serviceaccount "runner" to pod running with different serviceaccount name.',
    );

    const kind = await ref({ apiVersion: 'v1', kind: 'ConfigMap', name: 'x' });
    assert.equal(kind.code, 400);
    assert.equal(kind.json.message, 'cannot bind token to object of type /v1, Kind=ConfigMap');

    await createPod('uid-check');
    const uid = await ref({ apiVersion: 'v1', kind: 'Pod', name: 'uid-check', uid: 'not-its-uid' });
    assert.equal(uid.code, 409);
    assert.equal(
      uid.json.message,
      'Operation cannot be fulfilled on Pod "uid-check": the UID in the bound object reference (not-its-uid) does not match the UID in record. The object might have been deleted and then recreated',
    );
  });
});

describe('issued tokens', () => {
  test('defaults: API audiences, 3600 s; the reply echoes the spec and carries the expiry', async () => {
    const r = await requestToken('runner');
    assert.equal(r.code, 201, r.text);
    assert.equal(r.json.kind, 'TokenRequest');
    assert.equal(r.json.apiVersion, 'authentication.k8s.io/v1');
    assert.deepEqual((r.json.metadata as JsonObject).name, 'runner');
    assert.deepEqual((r.json.metadata as JsonObject).namespace, NS);
    assert.deepEqual(r.json.spec, { audiences: [ISSUER], expirationSeconds: 3600 });
    const status = r.json.status as JsonObject;
    const claims = claimsOf(String(status.token));
    assert.equal(claims.exp, Number(claims.iat) + 3600);
    assert.equal(Date.parse(String(status.expirationTimestamp)) / 1000, claims.exp);
  });

  test('header and claims as kube-apiserver signs them', async () => {
    const sa = (await call(cp, 'GET', `/api/v1/namespaces/${NS}/serviceaccounts/runner`)).json;
    const r = await requestToken('runner', { audiences: ['vault'], expirationSeconds: 600 });
    const token = String((r.json.status as JsonObject).token);
    const [header, payload] = token.split('.');
    const h = decode(header);
    assert.equal(h.alg, 'RS256');
    assert.match(String(h.kid), /^[A-Za-z0-9_-]{43}$/); // unpadded base64url of a SHA-256
    const claims = decode(payload);
    // go-jose marshals the merged claims as a map: keys sorted.
    assert.deepEqual(Object.keys(claims), ['aud', 'exp', 'iat', 'iss', 'jti', 'kubernetes.io', 'nbf', 'sub']);
    assert.deepEqual(claims.aud, ['vault']);
    assert.equal(claims.iss, ISSUER);
    assert.equal(claims.nbf, claims.iat);
    assert.equal(claims.sub, `system:serviceaccount:${NS}:runner`);
    assert.match(String(claims.jti), /^[0-9a-f-]{36}$/);
    assert.deepEqual(claims['kubernetes.io'], { namespace: NS, serviceaccount: { name: 'runner', uid: uidOf(sa) } });
  });

  test('a pod-bound token names the pod and its node; 3607 s ones live a year but warn after 3607 s', async () => {
    const pod = await createPod('bound');
    const r = await requestToken('runner', {
      expirationSeconds: 3607,
      boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'bound' },
    });
    assert.equal(r.code, 201, r.text);
    const claims = claimsOf(String((r.json.status as JsonObject).token));
    const k = claims['kubernetes.io'] as JsonObject;
    assert.deepEqual(k.pod, { name: 'bound', uid: uidOf(pod) });
    assert.equal(k.warnafter, Number(claims.iat) + 3607);
    assert.equal(claims.exp, Number(claims.iat) + 365 * 24 * 3600);
    // status.expirationTimestamp still says what was asked.
    assert.equal(
      Date.parse(String((r.json.status as JsonObject).expirationTimestamp)) / 1000,
      Number(claims.iat) + 3607,
    );
  });

  test('the node of a scheduled pod is in its token (name only when no Node object exists)', async () => {
    const r = await call(cp, 'POST', `/api/v1/namespaces/${NS}/pods`, {
      metadata: { name: 'on-node' },
      spec: { serviceAccountName: 'runner', nodeName: 'node-x', containers: [{ name: 'c', image: 'busybox' }] },
    });
    assert.equal(r.code, 201, r.text);
    const t = await requestToken('runner', { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'on-node' } });
    assert.deepEqual((claimsOf(String((t.json.status as JsonObject).token))['kubernetes.io'] as JsonObject).node, {
      name: 'node-x',
    });
  });
});

describe('authenticating with a token', () => {
  test("a pod's token is its ServiceAccount with pod extras, until the pod is deleted", async () => {
    const sa = (await call(cp, 'GET', `/api/v1/namespaces/${NS}/serviceaccounts/runner`)).json;
    const pod = await createPod('worker');
    const r = await requestToken('runner', { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'worker' } });
    const token = String((r.json.status as JsonObject).token);
    const jti = String(claimsOf(token).jti);
    const me = await whoAmI(token);
    assert.equal(me.code, 201, me.text);
    assert.deepEqual((me.json.status as JsonObject).userInfo, {
      username: `system:serviceaccount:${NS}:runner`,
      uid: uidOf(sa),
      groups: ['system:serviceaccounts', `system:serviceaccounts:${NS}`, 'system:authenticated'],
      extra: {
        'authentication.kubernetes.io/pod-name': ['worker'],
        'authentication.kubernetes.io/pod-uid': [uidOf(pod)],
        'authentication.kubernetes.io/credential-id': [`JTI=${jti}`],
      },
    });

    // Deleted with no grace the pod is gone from storage: its tokens stop at once.
    const del = await call(cp, 'DELETE', `/api/v1/namespaces/${NS}/pods/worker`, { gracePeriodSeconds: 0 });
    assert.equal(del.code, 200, del.text);
    const refused = await whoAmI(token);
    assert.equal(refused.code, 401);
    // kubernetes/apiserver pkg/endpoints/filters/authentication.go
    assert.deepEqual(refused.json, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Unauthorized',
      reason: 'Unauthorized',
      code: 401,
    });
  });

  test('a token stops working after its expiry plus 60 s of leeway', async () => {
    const r = await requestToken('runner', { expirationSeconds: 600 });
    const token = String((r.json.status as JsonObject).token);
    assert.equal((await whoAmI(token)).code, 201);
    offsetMs += 630_000; // past exp, inside the leeway
    try {
      assert.equal((await whoAmI(token)).code, 201);
      offsetMs += 31_000;
      assert.equal((await whoAmI(token)).code, 401);
    } finally {
      offsetMs = 0;
    }
  });

  test('a token for another audience is not an API credential; TokenReview says why', async () => {
    const r = await requestToken('runner', { audiences: ['vault'] });
    const token = String((r.json.status as JsonObject).token);
    assert.equal((await whoAmI(token)).code, 401);

    const review = (audiences?: string[]) =>
      call(cp, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenReview',
        spec: { token, ...(audiences ? { audiences } : {}) },
      });
    const api = await review();
    assert.equal(api.code, 201);
    assert.equal((api.json.status as JsonObject).authenticated, false);
    const vault = await review(['vault']);
    assert.equal(vault.code, 201);
    const status = vault.json.status as JsonObject;
    assert.equal(status.authenticated, true);
    assert.deepEqual(status.audiences, ['vault']);
    assert.equal((status.user as JsonObject).username, `system:serviceaccount:${NS}:runner`);
  });

  test('deleting the ServiceAccount invalidates its tokens', async () => {
    await call(cp, 'POST', `/api/v1/namespaces/${NS}/serviceaccounts`, { metadata: { name: 'short-lived' } });
    const r = await requestToken('short-lived');
    const token = String((r.json.status as JsonObject).token);
    assert.equal((await whoAmI(token)).code, 201);
    await call(cp, 'DELETE', `/api/v1/namespaces/${NS}/serviceaccounts/short-lived`);
    await waitFor(async () => (await whoAmI(token)).code === 401, 'the token to be refused');
  });
});

describe('kubectl', () => {
  for (const version of ['1.27', '1.33']) {
    test(`create token and auth whoami (kubectl ${version})`, async () => {
      const plain = await kubectl(cp.kubeconfigPath, ['-n', NS, 'create', 'token', 'runner'], { version });
      assert.equal(plain.code, 0, plain.stderr);
      assert.equal(claimsOf(plain.stdout.trim()).sub, `system:serviceaccount:${NS}:runner`);

      await createPod(`kubectl-${version.replace('.', '-')}`);
      const bound = await kubectl(
        cp.kubeconfigPath,
        [
          '-n',
          NS,
          'create',
          'token',
          'runner',
          '--duration=20m',
          '--bound-object-kind=Pod',
          `--bound-object-name=kubectl-${version.replace('.', '-')}`,
        ],
        { version },
      );
      assert.equal(bound.code, 0, bound.stderr);
      const claims = claimsOf(bound.stdout.trim());
      assert.equal(claims.exp, Number(claims.iat) + 1200);
      assert.equal(
        ((claims['kubernetes.io'] as JsonObject).pod as JsonObject).name,
        `kubectl-${version.replace('.', '-')}`,
      );

      const admin = await kubectl(cp.kubeconfigPath, ['auth', 'whoami'], { version });
      assert.equal(admin.code, 0, admin.stderr);
      assert.match(admin.stdout, /^Username\s+kubernetes-admin$/m);
      assert.match(admin.stdout, /^Groups\s+\[system:masters system:authenticated\]$/m);

      const asSa = await kubectl(cp.kubeconfigPath, ['auth', 'whoami', `--token=${plain.stdout.trim()}`], { version });
      assert.equal(asSa.code, 0, asSa.stderr);
      assert.match(asSa.stdout, new RegExp(`^Username\\s+system:serviceaccount:${NS}:runner$`, 'm'));
    });
  }

  test('discovery lists serviceaccounts/token as a create-only TokenRequest subresource', async () => {
    const r = await call(cp, 'GET', '/api/v1');
    const entry = ((r.json.resources ?? []) as JsonObject[]).find((x) => x.name === 'serviceaccounts/token');
    assert.deepEqual(entry, {
      name: 'serviceaccounts/token',
      singularName: '',
      namespaced: true,
      group: 'authentication.k8s.io',
      version: 'v1',
      kind: 'TokenRequest',
      verbs: ['create'],
    });
  });
});

describe('service account issuer discovery', () => {
  test('a service account reads the OpenID configuration and the key that verifies its token', async () => {
    const r = await requestToken('runner');
    const token = String((r.json.status as JsonObject).token);
    const asRunner = { Authorization: `Bearer ${token}` };
    // pkg/serviceaccount/openidmetadata.go; readable by system:serviceaccounts (bootstrap policy).
    const config = await call(cp, 'GET', '/.well-known/openid-configuration', undefined, asRunner);
    assert.equal(config.code, 200, config.text);
    assert.deepEqual(config.json, {
      issuer: ISSUER,
      jwks_uri: `${ISSUER}/openid/v1/jwks`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
    });
    const jwks = await call(cp, 'GET', '/openid/v1/jwks', undefined, asRunner);
    assert.equal(jwks.code, 200, jwks.text);
    const [key] = jwks.json.keys as JsonObject[];
    const [header, payload, signature] = token.split('.');
    assert.equal(key.kid, decode(header).kid);
    const publicKey = createPublicKey({ key: key as JsonWebKey, format: 'jwk' });
    const verified = createVerify('RSA-SHA256')
      .update(`${header}.${payload}`)
      .verify(publicKey, Buffer.from(signature, 'base64url'));
    assert.equal(verified, true);
  });
});
