// The generated Deployment config/manager/deployment_peerpod-controller.yaml runs on the
// embedded cluster as shipped: its pod is a real `peerpods run peerpod-controller …` process with
// the pod's env, volumes (the emptyDir /tmp, the optional ssh secret) and service-account directory,
// reaching the API server in-cluster, and it turns Ready through its own readiness probe on :8081.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import type { TestCluster } from '../../../helpers/control-plane.ts';
import { kubectl } from '../../../helpers/kubectl.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';
import { alive, pidsWithCmdline, startProcessCluster, until } from './helpers.ts';

const config = (path: string): string => fileURLToPath(new URL(`../../../../config/${path}`, import.meta.url));

describe('process runtime: the generated controller-manager Deployment', () => {
  let cp: TestCluster;
  before(async () => {
    cp = await startProcessCluster();
  });
  after(() => cp.stop());

  const ok = async (args: string[]): Promise<string> => {
    const r = await kubectl(cp.kubeconfigPath, args, { timeoutMs: 120_000 });
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };

  test('its pod runs the real operator and becomes Running and Ready through its probe', async () => {
    await ok(['apply', '-f', config('crd/bases')]);
    await ok(['apply', '-f', config('manager/namespace_peerpods-system.yaml')]);
    // Its identity as generated: the ServiceAccount and its roles.
    for (const kind of ['serviceaccount', 'clusterrole', 'clusterrolebinding', 'role', 'rolebinding']) {
      await ok(['apply', '-f', config(`rbac/${kind}_peerpod-controller.yaml`)]);
    }
    await ok(['apply', '-f', config('manager/deployment_peerpod-controller.yaml')]);
    const pods = async (): Promise<JsonObject[]> =>
      (
        JSON.parse(
          await ok(['get', 'pods', '-n', 'peerpods-system', '-l', 'control-plane=peerpod-controller', '-o', 'json']),
        ) as { items: JsonObject[] }
      ).items;
    const ready = (await until(
      async () => {
        const [pod] = await pods();
        const conditions = ((pod?.status as JsonObject | undefined)?.conditions ?? []) as JsonObject[];
        return conditions.some((c) => c.type === 'Ready' && c.status === 'True') ? pod : undefined;
      },
      { what: 'controller-manager pod Ready', timeoutMs: 90_000 },
    )) as JsonObject;
    const status = ready.status as JsonObject;
    assert.equal(status.phase, 'Running');
    const cs = ((status.containerStatuses ?? []) as JsonObject[])[0];
    assert.equal(cs.name, 'manager');
    assert.equal(cs.ready, true);
    assert.equal(cs.restartCount, 0);
    assert.match(String(cs.containerID), /^process:\/\//);
    // A real process of this checkout's CLI, with the Deployment's arguments.
    const pids = pidsWithCmdline('peerpod-controller', '--health-probe-bind-address=:8081');
    assert.ok(pids.length > 0);
    // Its output is captured: the operator logs JSON lines.
    const meta = ready.metadata as JsonObject;
    const pod = cp.internals.store.get(
      cp.internals.catalog.lookup('', 'v1', 'pods')!,
      'peerpods-system',
      String(meta.name),
    );
    const stream = await cp.internals.extensions.podStreams!.logs(
      pod,
      { container: 'manager', previous: false, follow: false, timestamps: false, tailLines: 1 },
      new AbortController().signal,
    );
    let last = '';
    for await (const chunk of stream) last += String(chunk);
    assert.equal(typeof (JSON.parse(last) as JsonObject).msg, 'string', last);
    // Stopping the cluster stops the operator.
    await cp.stop();
    assert.deepEqual(pids.filter(alive), []);
  });
});
