// Fault injection on the API server's request paths (ControlPlane.faults), seen from real HTTP and
// kubectl: each action answers as kube-apiserver would, rules match what they say, `times`,
// `probability` and `seed` decide deterministically, and the server's own controllers never see
// a fault.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { startTestCluster, eventually, type TestCluster } from '../../../helpers/control-plane.ts';
import { call, createNamespace } from '../../../helpers/https.ts';
import { kubectl } from '../../../helpers/kubectl.ts';
import type { UserInfo } from '../../../../src/kube/auth/user.ts';

const ALICE: UserInfo = { username: 'alice', groups: ['system:masters'] };

interface WatchResult {
  code: number;
  events: Array<{ type: string; object: { kind?: string; code?: number; reason?: string; message?: string } }>;
}

/** Reads a watch until the server ends it (failing after `timeoutMs`). */
function watchToEnd(cp: TestCluster, path: string, timeoutMs = 10_000): Promise<WatchResult> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${cp.url}${path}`,
      { ca: cp.caPem, headers: { Authorization: `Bearer ${cp.token}`, Accept: 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => {
          clearTimeout(timer);
          const events = text
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as WatchResult['events'][number]);
          resolve({ code: res.statusCode ?? 0, events });
        });
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`watch ${path} still open after ${timeoutMs} ms`)), timeoutMs);
    req.on('error', reject);
    req.end();
  });
}

describe('fault injection', () => {
  let cp: TestCluster;
  const ns = 'faults';

  before(async () => {
    cp = await startTestCluster({ users: [{ token: 'alice-token', user: ALICE }] });
    await createNamespace(cp, ns);
    for (const name of ['a', 'b', 'c']) {
      const r = await call(cp, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name } });
      assert.equal(r.code, 201, r.text);
    }
  });
  after(async () => {
    cp.faults.clear();
    await cp?.stop();
  });

  it('429 is kube max-in-flight answer with Retry-After, for `times` requests only', async () => {
    const fault = cp.faults.inject({
      match: { verb: 'get', resource: 'configmaps' },
      action: { type: 'status', code: 429 },
      times: 2,
    });
    try {
      for (let i = 0; i < 2; i++) {
        const r = await new Promise<{ code: number; retryAfter: unknown; json: Record<string, unknown> }>(
          (resolve, reject) => {
            const req = request(
              `${cp.url}/api/v1/namespaces/${ns}/configmaps/a`,
              { ca: cp.caPem, headers: { Authorization: `Bearer ${cp.token}` } },
              (res) => {
                let t = '';
                res.on('data', (d: Buffer) => (t += d.toString()));
                res.on('end', () =>
                  resolve({ code: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], json: JSON.parse(t) }),
                );
              },
            );
            req.on('error', reject);
            req.end();
          },
        );
        assert.equal(r.code, 429);
        // apiserver/pkg/server/filters/maxinflight.go: "Too many requests, please try again later." with Retry-After 1;
        // responsewriters.ErrorNegotiated copies details.retryAfterSeconds into the header.
        assert.equal(r.retryAfter, '1');
        assert.deepEqual(r.json, {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'Too many requests, please try again later.',
          reason: 'TooManyRequests',
          details: { retryAfterSeconds: 1 },
          code: 429,
        });
      }
      assert.equal((await call(cp, 'GET', `/api/v1/namespaces/${ns}/configmaps/a`)).code, 200, 'retired after 2');
      assert.equal(fault.hits, 2);
    } finally {
      fault.remove();
    }
  });

  it('500 and 504 carry kube reasons and messages; only matching requests fail', async () => {
    const internal = cp.faults.inject({
      match: { verb: 'create', resource: 'configmaps', namespace: ns },
      action: { type: 'status', code: 500 },
    });
    const timeout = cp.faults.inject({
      match: { verb: 'list', resource: 'secrets' },
      action: { type: 'status', code: 504 },
    });
    try {
      const created = await call(cp, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'never' } });
      assert.equal(created.code, 500);
      assert.equal(created.json.reason, 'InternalError');
      assert.equal(created.json.message, 'Internal error occurred: injected fault');
      // Not served: the object was never created.
      assert.equal((await call(cp, 'GET', `/api/v1/namespaces/${ns}/configmaps/never`)).code, 404);
      // Other namespaces, verbs and resources are served.
      assert.equal(
        (await call(cp, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'x' } })).code,
        201,
      );
      assert.equal((await call(cp, 'GET', `/api/v1/namespaces/${ns}/configmaps/a`)).code, 200);

      const listed = await call(cp, 'GET', `/api/v1/namespaces/${ns}/secrets`);
      assert.equal(listed.code, 504);
      // apiserver/pkg/server/filters/timeout.go: NewTimeoutError("request did not complete within requested timeout - " + ctx.Err(), 0).
      assert.deepEqual(listed.json, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Timeout: request did not complete within requested timeout - context deadline exceeded',
        reason: 'Timeout',
        details: {},
        code: 504,
      });
      assert.equal(internal.hits, 1);
      assert.equal(timeout.hits, 1);
    } finally {
      cp.faults.clear();
    }
  });

  it('410 Expired: lists and watches from a resourceVersion only; a watch gets it as an ERROR event', async () => {
    const expired = cp.faults.inject({ match: { resource: 'configmaps' }, action: { type: 'status', code: 410 } });
    try {
      const list = await call(cp, 'GET', `/api/v1/namespaces/${ns}/configmaps`);
      assert.equal(list.code, 200, 'a list without a resourceVersion never expires');
      const rv = String((list.json.metadata as { resourceVersion: string }).resourceVersion);
      assert.equal((await call(cp, 'GET', `/api/v1/namespaces/${ns}/configmaps/a`)).code, 200, 'gets are untouched');
      assert.equal(expired.hits, 0);

      const old = await call(
        cp,
        'GET',
        `/api/v1/namespaces/${ns}/configmaps?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`,
      );
      assert.equal(old.code, 410);
      assert.equal(old.json.reason, 'Expired');
      assert.match(String(old.json.message), new RegExp(`^too old resource version: ${rv} \\(\\d+\\)$`));

      // The watch cache reports an expired watch on an open stream (cacher.go: watch with a too-old RV).
      const watch = await watchToEnd(cp, `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${rv}`);
      assert.equal(watch.code, 200);
      assert.equal(watch.events.length, 1);
      assert.equal(watch.events[0].type, 'ERROR');
      assert.equal(watch.events[0].object.kind, 'Status');
      assert.equal(watch.events[0].object.code, 410);
      assert.equal(watch.events[0].object.reason, 'Expired');
      assert.equal(expired.hits, 2);
    } finally {
      expired.remove();
    }
  });

  it('dropWatch ends a watch after N events, or at once', async () => {
    const afterTwo = cp.faults.inject({
      match: { verb: 'watch' },
      action: { type: 'dropWatch', afterEvents: 2 },
      times: 1,
    });
    try {
      // resourceVersion=0 starts with an ADDED event per object (a, b, c and kube-root-ca.crt).
      const cut = await watchToEnd(cp, `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=0`);
      assert.equal(cut.code, 200);
      assert.deepEqual(
        cut.events.map((e) => e.type),
        ['ADDED', 'ADDED'],
      );
      assert.equal(afterTwo.hits, 1);
    } finally {
      afterTwo.remove();
    }
    const atOnce = cp.faults.inject({ match: { verb: 'watch' }, action: { type: 'dropWatch' } });
    try {
      const cut = await watchToEnd(cp, `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=0`);
      assert.equal(cut.code, 200);
      assert.deepEqual(cut.events, []);
      // Not a watch: served as usual.
      assert.equal((await call(cp, 'GET', `/api/v1/namespaces/${ns}/configmaps`)).code, 200);
      assert.equal(atOnce.hits, 1);
    } finally {
      atOnce.remove();
    }
  });

  it('reset breaks the connection without an answer; the next request is served', async () => {
    const reset = cp.faults.inject({ match: { verb: 'get', name: 'b' }, action: { type: 'reset' }, times: 1 });
    await assert.rejects(call(cp, 'GET', `/api/v1/namespaces/${ns}/configmaps/b`), (e: NodeJS.ErrnoException) => {
      assert.equal(e.code, 'ECONNRESET');
      return true;
    });
    assert.equal((await call(cp, 'GET', `/api/v1/namespaces/${ns}/configmaps/b`)).code, 200);
    assert.equal(reset.hits, 1);
  });

  it('delay holds the request, then serves it', async () => {
    const slow = cp.faults.inject({ match: { verb: 'get', name: 'c' }, action: { type: 'delay', ms: 400 } });
    try {
      const t0 = Date.now();
      assert.equal((await call(cp, 'GET', `/api/v1/namespaces/${ns}/configmaps/c`)).code, 200);
      assert.ok(Date.now() - t0 >= 400, `answered after ${Date.now() - t0} ms`);
      assert.equal(slow.hits, 1);
    } finally {
      slow.remove();
    }
  });

  it('probability draws from the seeded sequence: the same seed gives the same faults', async () => {
    const pattern = async (seed: number): Promise<number[]> => {
      const rule = cp.faults.inject({
        match: { verb: 'get', name: 'a' },
        action: { type: 'status', code: 500 },
        probability: 0.5,
        seed,
      });
      const codes: number[] = [];
      for (let i = 0; i < 24; i++) codes.push((await call(cp, 'GET', `/api/v1/namespaces/${ns}/configmaps/a`)).code);
      rule.remove();
      assert.equal(rule.hits, codes.filter((c) => c === 500).length);
      return codes;
    };
    const first = await pattern(7);
    assert.deepEqual(await pattern(7), first);
    assert.ok(first.includes(500) && first.includes(200), `both outcomes in ${first.join(',')}`);
    assert.notDeepEqual(await pattern(8), first);
  });

  it('matches the user a request acts as, after authentication; a bad token is still 401', async () => {
    const aliceOnly = cp.faults.inject({ match: { user: 'alice' }, action: { type: 'status', code: 503 } });
    const everything = cp.faults.inject({ action: { type: 'status', code: 500 }, probability: 0 });
    try {
      const asAlice = await call(cp, 'GET', `/api/v1/namespaces/${ns}/configmaps/a`, undefined, {
        Authorization: 'Bearer alice-token',
      });
      assert.equal(asAlice.code, 503);
      assert.equal(asAlice.json.reason, 'ServiceUnavailable');
      assert.equal(
        (await call(cp, 'GET', `/api/v1/namespaces/${ns}/configmaps/a`)).code,
        200,
        'the admin is not alice',
      );
      const unauthenticated = await call(cp, 'GET', `/api/v1/namespaces/${ns}/configmaps/a`, undefined, {
        Authorization: 'Bearer not-a-token',
      });
      assert.equal(unauthenticated.code, 401);
      assert.equal(aliceOnly.hits, 1);
      assert.equal(everything.hits, 0, 'probability 0 never acts');
    } finally {
      cp.faults.clear();
    }
    assert.equal(
      (
        await call(cp, 'GET', `/api/v1/namespaces/${ns}/configmaps/a`, undefined, {
          Authorization: 'Bearer alice-token',
        })
      ).code,
      200,
      'cleared',
    );
  });

  it('the server’s own controllers are never faulted: a Deployment gets its ReplicaSet while clients cannot create one', async () => {
    const noReplicaSets = cp.faults.inject({
      match: { resource: 'replicasets', verb: 'create' },
      action: { type: 'status', code: 500 },
    });
    try {
      const rs = await call(cp, 'POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, {
        metadata: { name: 'by-hand' },
        spec: {
          selector: { matchLabels: { app: 'h' } },
          template: { metadata: { labels: { app: 'h' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
        },
      });
      assert.equal(rs.code, 500);
      const deploy = await call(cp, 'POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
        metadata: { name: 'web' },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
        },
      });
      assert.equal(deploy.code, 201, deploy.text);
      await eventually(
        async () => {
          const l = await call(cp, 'GET', `/apis/apps/v1/namespaces/${ns}/replicasets?labelSelector=app%3Dweb`);
          return (l.json.items as unknown[]).length === 1;
        },
        { what: 'the Deployment controller’s ReplicaSet' },
      );
      assert.equal(noReplicaSets.hits, 1);
    } finally {
      noReplicaSets.remove();
    }
  });

  for (const version of ['1.27', '1.33']) {
    it(`kubectl ${version} (client-go) waits out a 429's Retry-After and succeeds`, async () => {
      const throttled = cp.faults.inject({
        match: { verb: 'list', resource: 'configmaps', namespace: ns },
        action: { type: 'status', code: 429 },
        times: 2,
      });
      try {
        const t0 = Date.now();
        const r = await kubectl(cp.kubeconfigPath, ['get', 'configmaps', '-n', ns, '-o', 'name'], { version });
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /configmap\/a/);
        assert.equal(throttled.hits, 2);
        // client-go's checkWait honours Retry-After: 1 s before each retry.
        assert.ok(Date.now() - t0 >= 2000, `took ${Date.now() - t0} ms`);
      } finally {
        throttled.remove();
      }
    });
  }

  it('refuses rules that cannot mean anything', () => {
    assert.throws(() => cp.faults.inject({ action: { type: 'status', code: 200 } }), TypeError);
    assert.throws(() => cp.faults.inject({ action: { type: 'delay', ms: -1 } }), TypeError);
    assert.throws(() => cp.faults.inject({ action: { type: 'reset' }, probability: 2 }), TypeError);
    assert.throws(() => cp.faults.inject({ action: { type: 'dropWatch', afterEvents: 1.5 } }), TypeError);
    assert.throws(() => cp.faults.inject({ action: { type: 'nope' } as never }), TypeError);
  });
});
