// A PeerPodConfig's maxVcpus and maxMemory reach the webhook it deploys: the Deployment runs it with
// --max-vcpus/--max-memory (only when set, so other configs' Deployments are unchanged), the CRD
// refuses values the webhook could not start with, and the webhook process started with the
// Deployment's own arguments denies larger pods and admits the rest.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createCa, issueServingCert } from '../../../src/apimachinery/index.ts';
import { ApiError, Deployments } from '../../../src/runtime/index.ts';
import type { AdmissionReview, KubeObject } from '../../../src/runtime/index.ts';
import { PeerPodConfigs } from '../../../src/peerpod/api/index.ts';
import type { PeerPodConfig } from '../../../src/peerpod/api/index.ts';
import { webhookDeployment } from '../../../src/peerpod/controllers/peerpodconfig/objects.ts';
import { resolveOptions } from '../../../src/peerpod/controllers/peerpodconfig/options.ts';
import { runCli, type CliRun } from '../../helpers/cli.ts';
import { NS, createConfig, eventually, startController, startEnv } from './helpers.ts';
import type { Env, Running } from './helpers.ts';

interface Container {
  args: string[];
  env: Array<{ name: string; value?: string }>;
}

function webhookContainer(d: KubeObject): Container {
  return (d as unknown as { spec: { template: { spec: { containers: Container[] } } } }).spec.template.spec
    .containers[0];
}

it('the webhook Deployment carries --max-vcpus and --max-memory only when the spec sets them', () => {
  const opts = resolveOptions({});
  assert.ok(opts.webhook);
  const cfg = (spec: PeerPodConfig['spec']) =>
    ({ metadata: { name: 'c', namespace: NS, uid: 'u' }, spec }) as unknown as PeerPodConfig;
  const set = webhookContainer(webhookDeployment(cfg({ maxVcpus: 8, maxMemory: '16Gi' }), opts, opts.webhook)).args;
  assert.deepEqual(set.slice(-2), ['--max-vcpus=8', '--max-memory=16Gi']);
  const unset = webhookContainer(webhookDeployment(cfg({}), opts, opts.webhook)).args;
  assert.equal(
    unset.some((a) => a.startsWith('--max-')),
    false,
  );
});

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise((r) => srv.close(r));
  return port;
}

function review(resources: unknown): AdmissionReview {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'r',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      namespace: 'default',
      operation: 'CREATE',
      userInfo: { username: 'alice' },
      object: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p', namespace: 'default' },
        spec: { runtimeClassName: 'kata-remote', containers: [{ name: 'app', image: 'x', resources }] },
      } as KubeObject,
    },
  };
}

describe('PeerPodConfig VM size limits', () => {
  const ca = createCa('webhook-limits-ca');
  let env: Env;
  let ctrl: Running;
  let dir: string;
  let webhook: CliRun | undefined;
  let port: number;

  before(async () => {
    env = await startEnv(1);
    ctrl = await startController(env, { adaptorImage: 'example.com/caa:1' });
    dir = await mkdtemp(path.join(tmpdir(), 'peerpods-webhook-limits-'));
    const serving = issueServingCert(ca, { commonName: 'webhook', dnsNames: ['localhost'], ips: ['127.0.0.1'] });
    await writeFile(path.join(dir, 'tls.crt'), serving.certPem);
    await writeFile(path.join(dir, 'tls.key'), serving.keyPem);
  });
  after(async () => {
    if (webhook && webhook.child.exitCode === null && webhook.child.signalCode === null) {
      webhook.child.kill('SIGKILL');
      await webhook.exited;
    }
    await ctrl?.stop();
    await env?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('the CRD refuses sizes the webhook could not take', async () => {
    for (const [field, spec] of [
      ['maxVcpus', { limit: 1, maxVcpus: 0 }],
      ['maxMemory', { limit: 1, maxMemory: '512' }],
      ['maxMemory', { limit: 1, maxMemory: '1G' }],
    ] as const) {
      await assert.rejects(createConfig(env, 'bad', spec), (e: unknown) => {
        assert.ok(e instanceof ApiError, String(e));
        assert.equal(e.code, 422);
        assert.match(e.message, new RegExp(`spec\\.${field}`));
        return true;
      });
    }
  });

  async function deployedArgs(want: string[]): Promise<Container> {
    return eventually(
      async () => {
        const c = webhookContainer(await env.client.get(Deployments, 'peer-pods-webhook', NS));
        return want.every((a) => c.args.includes(a)) ? c : undefined;
      },
      { what: `the webhook Deployment to carry ${want.join(' ')}`, timeoutMs: 20_000 },
    );
  }

  function post(r: AdmissionReview): Promise<AdmissionReview['response']> {
    return new Promise((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, path: '/mutate-v1-pod', method: 'POST', ca: ca.certPem, agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve((JSON.parse(Buffer.concat(chunks).toString()) as AdmissionReview).response));
        },
      );
      req.on('error', reject);
      req.setHeader('content-type', 'application/json');
      req.end(JSON.stringify(r));
    });
  }

  it("the webhook run with the Deployment's arguments denies larger pods and admits the rest", async () => {
    await createConfig(env, 'main', { limit: 2, maxVcpus: 4, maxMemory: '8Gi' });
    const container = await deployedArgs(['--max-vcpus=4', '--max-memory=8Gi']);
    // Where it listens and its certificate are the pod's business; everything else is as deployed.
    const local = ['--host', '--port', '--cert-dir', '--health-probe-bind-address'];
    port = await freePort();
    const args = [
      ...container.args.filter((a) => !local.some((f) => a.startsWith(`${f}=`))),
      '--host=127.0.0.1',
      `--port=${port}`,
      `--cert-dir=${dir}`,
      '--health-probe-bind-address=0',
    ];
    const envVars = Object.fromEntries(container.env.map((e) => [e.name, e.value ?? '']));
    webhook = runCli(args, envVars);
    const serving = webhook;
    await eventually(
      () =>
        post(review({})).then(
          () => true,
          () => serving.child.exitCode !== null && Promise.reject(new Error(serving.output())),
        ),
      { what: 'the webhook to serve', timeoutMs: 20_000 },
    );

    const cpu = await post(review({ requests: { cpu: '5' } }));
    assert.equal(cpu?.allowed, false);
    assert.equal(cpu?.status?.code, 403);
    assert.equal(
      cpu?.status?.message,
      'spec.containers[0].resources.requests.cpu: "5" would make a peer-pod VM of 5 vCPUs, more than the maximum of 4 (peer-pods webhook --max-vcpus)',
    );
    const memory = await post(review({ requests: { memory: '9Gi' } }));
    assert.equal(memory?.allowed, false);
    assert.equal(
      memory?.status?.message,
      'spec.containers[0].resources.requests.memory: "9Gi" would make a peer-pod VM of 9216 MiB of memory, more than the maximum of 8192 (peer-pods webhook --max-memory)',
    );
    const fits = await post(review({ requests: { cpu: '4', memory: '8Gi' } }));
    assert.equal(fits?.allowed, true);

    // A changed limit rolls out to the Deployment.
    await env.client.patch(PeerPodConfigs, 'main', NS, { spec: { maxVcpus: 6 } }, 'merge');
    await deployedArgs(['--max-vcpus=6', '--max-memory=8Gi']);
  });
});
