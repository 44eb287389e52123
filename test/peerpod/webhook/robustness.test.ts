// The webhook as a client can reach it: real AdmissionReviews over HTTPS to the pod mutator, with
// /healthz served from the same process (its event loop is what one bad request could freeze).
// Every bad review is answered with a 4xx at once, and the probe keeps answering meanwhile.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { createCa, issueServingCert } from '../../../src/apimachinery/index.ts';
import { HealthChecks, ProbeServer, silentLogger } from '../../../src/runtime/index.ts';
import type { AdmissionReview, KubeObject } from '../../../src/runtime/index.ts';
import { Annotations, DEFAULT_MAX_VCPUS, podWebhookServer } from '../../../src/peerpod/webhook/index.ts';

interface Reply {
  status: number;
  body: string;
}

/** The deadline every answer must beat; the frozen webhook took 15–25 s. */
const DEADLINE_MS = 2000;

function withDeadline<T>(what: string, p: Promise<T>, ms = DEADLINE_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer before the ${ms} ms deadline`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

function review(spec: unknown, metadata: Record<string, unknown> = {}): AdmissionReview {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'req-1',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      namespace: 'default',
      operation: 'CREATE',
      userInfo: { username: 'alice' },
      object: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p', namespace: 'default', ...metadata },
        spec,
      } as KubeObject,
    },
  };
}

function kataPod(resources: unknown): unknown {
  return { runtimeClassName: 'kata-remote', containers: [{ name: 'app', image: 'x', resources }] };
}

describe('peer-pods webhook under bad reviews', () => {
  const ca = createCa('webhook-test-ca');
  const abort = new AbortController();
  let dir: string;
  let hookPort: number;
  let probePort: number;
  let runs: Promise<void>[];

  function post(body: string | Buffer): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: hookPort,
          path: '/mutate-v1-pod',
          method: 'POST',
          ca: ca.certPem,
          agent: false,
          headers: { 'content-type': 'application/json' },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  /** The AdmissionReview response of a review that must be answered with HTTP 200. */
  async function admit(r: AdmissionReview, what: string): Promise<NonNullable<AdmissionReview['response']>> {
    const reply = await withDeadline(what, post(JSON.stringify(r)));
    assert.equal(reply.status, 200, `${what}: ${reply.body}`);
    const out = JSON.parse(reply.body) as AdmissionReview;
    assert.ok(out.response, what);
    return out.response;
  }

  function healthz(): Promise<number> {
    return new Promise((resolve, reject) => {
      httpRequest({ host: '127.0.0.1', port: probePort, path: '/healthz', agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
        .on('error', reject)
        .end();
    });
  }

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'peerpods-webhook-bad-'));
    const serving = issueServingCert(ca, { commonName: 'webhook', dnsNames: ['localhost'], ips: ['127.0.0.1'] });
    await writeFile(path.join(dir, 'tls.crt'), serving.certPem);
    await writeFile(path.join(dir, 'tls.key'), serving.keyPem);
    const registry = new Registry();
    const server = podWebhookServer({ port: 0, host: '127.0.0.1', certDir: dir, metricsRegistry: registry });
    const health = new HealthChecks();
    health.add('ping', () => true);
    const ready = new HealthChecks();
    ready.add('webhook', server.startedChecker());
    const probe = new ProbeServer({ host: '127.0.0.1', port: 0, registry, health, ready, logger: silentLogger() });
    runs = [server.start(abort.signal), probe.start(abort.signal)];
    hookPort = (await server.address()).port;
    probePort = (await probe.address()).port;
  });

  after(async () => {
    abort.abort();
    await Promise.allSettled(runs);
    await rm(dir, { recursive: true, force: true });
  });

  it('denies a cpu of 1e100000000 or 1e999999999 with 400 at once while /healthz keeps answering', async () => {
    for (const cpu of ['1e100000000', '1e999999999']) {
      const [res, probe] = await Promise.all([
        admit(review(kataPod({ requests: { cpu }, limits: { cpu } })), `cpu ${cpu}`),
        withDeadline(`/healthz during cpu ${cpu}`, healthz()),
      ]);
      assert.equal(res.allowed, false);
      assert.equal(res.status?.code, 400);
      assert.match(
        String(res.status?.message),
        /^spec\.containers\[0\]\.resources\.(requests|limits)\.cpu: quantities are limited/,
      );
      assert.equal(probe, 200);
    }
    assert.equal(await withDeadline('/healthz after', healthz()), 200);
  });

  it('answers malformed pods with 400 naming the field, not 500', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [
        { runtimeClassName: 'kata-remote', containers: 'x' },
        /spec\.containers must be a list of containers, got a string/,
      ],
      [
        { runtimeClassName: 'kata-remote', containers: [null] },
        /spec\.containers\[0\] must be a container \(an object\), got null/,
      ],
      [
        { runtimeClassName: 'kata-remote', containers: [{ name: 'a', resources: [] }] },
        /spec\.containers\[0\]\.resources must be an object/,
      ],
      [kataPod({ requests: { cpu: { n: 1 } } }), /spec\.containers\[0\]\.resources\.requests\.cpu must be a quantity/],
      [{ runtimeClassName: 7, containers: [] }, /spec\.runtimeClassName must be a string/],
    ];
    for (const [spec, message] of cases) {
      const res = await admit(review(spec), JSON.stringify(spec));
      assert.equal(res.allowed, false, JSON.stringify(spec));
      assert.equal(res.status?.code, 400, JSON.stringify(spec));
      assert.match(String(res.status?.message), message);
    }
  });

  it('refuses a 9 MiB body with 413 and goes on serving', async () => {
    const big = review(kataPod({}), { annotations: { pad: 'x'.repeat(9 << 20) } });
    // Uploading 9 MiB over TLS takes seconds on a busy machine; what matters is the 413, not a reset.
    const reply = await withDeadline('9 MiB review', post(JSON.stringify(big)), 60_000);
    assert.equal(reply.status, 413);
    assert.match(reply.body, /request body larger than 8388608 bytes/);
    const res = await admit(review(kataPod({ requests: { cpu: '1' } })), 'a normal review after');
    assert.equal(res.allowed, true);
  });

  it('denies negative sizes (422) and sizes above the maximum (403), naming container and field', async () => {
    const negative: Array<[unknown, RegExp]> = [
      [
        { requests: { cpu: '-1' } },
        /^spec\.containers\[0\]\.resources\.requests\.cpu: Invalid value: "-1": must be greater than or equal to 0$/,
      ],
      [
        { requests: { memory: '-1Gi' } },
        /^spec\.containers\[0\]\.resources\.requests\.memory: Invalid value: "-1Gi": must be greater than or equal to 0$/,
      ],
      [
        { requests: { cpu: '1' }, limits: { cpu: '-1' } },
        /^spec\.containers\[0\]\.resources\.limits\.cpu: Invalid value: "-1"/,
      ],
    ];
    for (const [resources, message] of negative) {
      const res = await admit(review(kataPod(resources)), JSON.stringify(resources));
      assert.equal(res.allowed, false);
      assert.equal(res.status?.code, 422);
      assert.match(String(res.status?.message), message);
    }
    const tooBig = await admit(review(kataPod({ requests: { cpu: '1e6', memory: '1Gi' } })), 'cpu 1e6');
    assert.equal(tooBig.allowed, false);
    assert.equal(tooBig.status?.code, 403);
    assert.equal(
      tooBig.status?.message,
      `spec.containers[0].resources.requests.cpu: "1e6" would make a peer-pod VM of 1000000 vCPUs, more than the maximum of ${DEFAULT_MAX_VCPUS} (peer-pods webhook --max-vcpus)`,
    );
    const memory = await admit(
      review(kataPod({ limits: { memory: '64Ti' }, requests: { memory: '64Ti' } })),
      'memory 64Ti',
    );
    assert.equal(memory.status?.code, 403);
    assert.match(
      String(memory.status?.message),
      /^spec\.containers\[0\]\.resources\.limits\.memory: "64Ti" would make a peer-pod VM of 67108864 MiB of memory/,
    );
    // Summed over containers, as upstream sizes the VM: each alone fits, together they do not.
    const two = {
      runtimeClassName: 'kata-remote',
      containers: [
        { name: 'a', image: 'x', resources: { requests: { cpu: '1500' } } },
        { name: 'b', image: 'x', resources: { requests: { cpu: '1000' } } },
      ],
    };
    const summed = await admit(review(two), 'two containers');
    assert.equal(summed.status?.code, 403);
    assert.match(
      String(summed.status?.message),
      /^spec\.containers\[0\]\.resources\.requests\.cpu \+ spec\.containers\[1\]\.resources\.requests\.cpu: "1500" \+ "1000" \(summed over the containers\) would make a peer-pod VM of 2500 vCPUs/,
    );
    const annotated = await admit(
      review(kataPod({}), { annotations: { [Annotations.vcpus]: '-1' } }),
      'a negative vCPU annotation',
    );
    assert.equal(annotated.status?.code, 422);
    assert.match(
      String(annotated.status?.message),
      /^metadata\.annotations\[io\.katacontainers\.config\.hypervisor\.default_vcpus\]: Invalid value: "-1"/,
    );
    const fine = await admit(review(kataPod({ requests: { cpu: '2', memory: '1Gi' } })), 'a valid size');
    assert.equal(fine.allowed, true);
  });
});
