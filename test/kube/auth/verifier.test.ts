// The service-account token authenticator against objects it reads (pkg/serviceaccount/claims.go
// Validate): a bound pod being deleted keeps its tokens for 60 s past its deletionTimestamp; a
// recreated account (new uid) or a forged signature does not authenticate.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject } from '../../../src/apimachinery/meta/index.ts';
import { TokenIssuer } from '../../../src/kube/auth/tokens/issuer.ts';
import { generateSigningKey } from '../../../src/kube/auth/tokens/keys.ts';
import type { ObjectLookup } from '../../../src/kube/auth/tokens/lookup.ts';
import { InvalidTokenError, ServiceAccountTokenAuthenticator } from '../../../src/kube/auth/tokens/verifier.ts';

const T0 = Date.parse('2026-01-01T00:00:00Z');
let now = T0;
const objects = new Map<string, JsonObject>();
const lookup: ObjectLookup = (resource, namespace, name) => objects.get(`${resource}/${namespace ?? ''}/${name}`);
let issuer: TokenIssuer;
let other: TokenIssuer;

before(async () => {
  issuer = new TokenIssuer({ key: await generateSigningKey(), clock: { now: () => now } });
  other = new TokenIssuer({ key: await generateSigningKey(), clock: { now: () => now } });
});

function setObject(resource: string, name: string, metadata: JsonObject): void {
  objects.set(`${resource}/ns/${name}`, { metadata: { name, ...metadata } });
}

function podToken(using = issuer): string {
  return using.issue({
    namespace: 'ns',
    serviceAccount: { name: 'sa', uid: 'sa-1' },
    audiences: [issuer.issuer],
    expirationSeconds: 3600,
    pod: { name: 'p', uid: 'pod-1' },
  }).token;
}

const authenticator = () => new ServiceAccountTokenAuthenticator(issuer, lookup);
const refusal = (message: string) => (e: unknown) => e instanceof InvalidTokenError && e.message === message;

test('a pod being deleted keeps its tokens until 60 s after its deletionTimestamp', () => {
  now = T0;
  setObject('serviceaccounts', 'sa', { uid: 'sa-1' });
  setObject('pods', 'p', { uid: 'pod-1' });
  const token = podToken();
  assert.equal(authenticator().authenticate(token)?.user.username, 'system:serviceaccount:ns:sa');
  setObject('pods', 'p', { uid: 'pod-1', deletionTimestamp: new Date(T0 + 30_000).toISOString() });
  now = T0 + 89_000;
  assert.ok(authenticator().authenticate(token));
  now = T0 + 91_000;
  assert.throws(() => authenticator().authenticate(token), refusal('service account token has been invalidated'));
});

test('a recreated account or pod (new uid) does not honour old tokens', () => {
  now = T0;
  setObject('serviceaccounts', 'sa', { uid: 'sa-1' });
  setObject('pods', 'p', { uid: 'pod-1' });
  const token = podToken();
  setObject('pods', 'p', { uid: 'pod-2' });
  assert.throws(() => authenticator().authenticate(token), refusal('service account token has been invalidated'));
  setObject('pods', 'p', { uid: 'pod-1' });
  setObject('serviceaccounts', 'sa', { uid: 'sa-2' });
  assert.throws(() => authenticator().authenticate(token), refusal('service account token has been invalidated'));
});

test('another key signed it: refused; not a JWT of this issuer: left to other authenticators', () => {
  now = T0;
  setObject('serviceaccounts', 'sa', { uid: 'sa-1' });
  setObject('pods', 'p', { uid: 'pod-1' });
  assert.throws(() => authenticator().authenticate(podToken(other)), refusal('invalid bearer token'));
  assert.equal(authenticator().authenticate('not-a-jwt'), undefined);
  const foreign = new TokenIssuer({ key: issuer.key, clock: issuer.clock, issuer: 'https://elsewhere' });
  assert.equal(authenticator().authenticate(podToken(foreign)), undefined);
});

test('a token verified once is checked again on every request: expiry and its bound pod', () => {
  now = T0;
  setObject('serviceaccounts', 'sa', { uid: 'sa-1' });
  setObject('pods', 'p', { uid: 'pod-1' });
  const auth = authenticator();
  const token = podToken();
  assert.ok(auth.authenticate(token));
  assert.ok(auth.authenticate(token));
  objects.delete('pods/ns/p');
  assert.throws(() => auth.authenticate(token), refusal('service account token has been invalidated'));
  setObject('pods', 'p', { uid: 'pod-1' });
  assert.ok(auth.authenticate(token));
  now = T0 + 3600_000 + 61_000;
  assert.throws(() => auth.authenticate(token), refusal('service account token has expired'));
  // The same claims signed by another key are a different token: never taken for the verified one.
  now = T0;
  assert.throws(() => auth.authenticate(podToken(other)), refusal('invalid bearer token'));
});
