// A second provider under the PeerPodConfig controller as `peerpods deploy` runs it: in its namespace,
// as its ServiceAccount with only the RBAC `peerpods manifests` generates. That Role names the default
// adaptor DaemonSet only, so the second provider's is refused with the API server's 403 on the
// config's AdaptorDeployed condition, while its capacity and webhook route are applied; the Role the
// README tells an administrator to add makes it deploy.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DaemonSets, Deployments, Nodes, RoleBindings, Roles } from '../../../src/runtime/index.ts';
import type { KubeObject } from '../../../src/runtime/index.ts';
import { PeerPodConfigs } from '../../../src/peerpod/api/index.ts';
import type { PeerPodConfig } from '../../../src/peerpod/api/index.ts';
import { ADAPTOR_DAEMONSET, WEBHOOK_DEPLOYMENT } from '../../../src/peerpod/controllers/peerpodconfig/index.ts';
import { installGeneratedRbac } from '../../helpers/generated-rbac.ts';
import { NS, createConfig, eventually, startController, startEnv } from '../peerpodconfig/helpers.ts';
import type { Env, Running } from '../peerpodconfig/helpers.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- deep reads of generated objects in assertions */
type Obj = KubeObject & Record<string, any>;

const SIM_DAEMONSET = `${ADAPTOR_DAEMONSET}-kata-remote-sim`;
const SIM_VM = 'simulated.kata.peerpods.io/vm';

function condition(c: PeerPodConfig, type: string) {
  return c.status?.conditions?.find((x) => x.type === type);
}

describe('a second provider under the namespaced PeerPodConfig controller', () => {
  let env: Env;
  let ctrl: Running;
  let user: string;
  before(async () => {
    env = await startEnv(2);
    user = await installGeneratedRbac(env.client, 'peerpodconfig-controller');
    ctrl = await startController(
      env,
      { namespace: NS, adaptorImage: 'ghcr.io/peerpods/peerpods:dev', capacity: false },
      user,
    );
  });
  after(async () => {
    await ctrl.stop();
    await env.stop();
  });

  it('applies its capacity and route, refuses its DaemonSet until the Role names it', async () => {
    await createConfig(env, 'qemu', { limitPerNode: 1 });
    await createConfig(env, 'sim', {
      limitPerNode: 2,
      runtimeClassName: 'kata-remote-sim',
      extendedResource: SIM_VM,
      cloudProvider: 'simulated',
    });
    const refused = await eventually(
      async () => {
        const c = await env.client.get<PeerPodConfig>(PeerPodConfigs, 'sim', NS);
        return condition(c, 'AdaptorDeployed')?.status === 'False' ? c : undefined;
      },
      { what: "the second provider's DaemonSet to be refused" },
    );
    assert.match(condition(refused, 'AdaptorDeployed')?.message ?? '', /forbidden/i);
    assert.match(condition(refused, 'AdaptorDeployed')?.message ?? '', new RegExp(SIM_DAEMONSET));
    assert.equal(condition(refused, 'CapacityAdvertised')?.status, 'True');
    await eventually(
      async () => {
        const { items } = await env.client.list<Obj>(Nodes);
        return items.every((n) => n.status?.allocatable?.[SIM_VM] === '2');
      },
      { what: `${SIM_VM}=2 on every node` },
    );
    await eventually(
      async () => {
        const d = await env.client.get<Obj>(Deployments, WEBHOOK_DEPLOYMENT, NS);
        return d.spec.template.spec.containers[0].args.includes(`--runtime-class-resource=kata-remote-sim=${SIM_VM}`);
      },
      { what: 'the webhook Deployment to carry the route' },
    );

    // What an administrator adds for the second provider (README, "Several providers in one cluster").
    const sa = user.split(':').pop() as string;
    await env.client.create(Roles, {
      metadata: { name: 'peerpodconfig-controller-kata-remote-sim', namespace: NS },
      rules: [
        {
          apiGroups: ['apps'],
          resources: ['daemonsets'],
          verbs: ['get', 'list', 'watch', 'patch'],
          resourceNames: [SIM_DAEMONSET],
        },
      ],
    } as KubeObject);
    await env.client.create(RoleBindings, {
      metadata: { name: 'peerpodconfig-controller-kata-remote-sim', namespace: NS },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'Role',
        name: 'peerpodconfig-controller-kata-remote-sim',
      },
      subjects: [{ kind: 'ServiceAccount', name: sa, namespace: NS }],
    } as KubeObject);
    await eventually(
      async () => {
        const c = await env.client.get<PeerPodConfig>(PeerPodConfigs, 'sim', NS);
        return condition(c, 'Ready')?.status === 'True';
      },
      { what: 'the second provider Ready once its DaemonSet is allowed', timeoutMs: 60_000 },
    );
    const ds = await env.client.get<Obj>(DaemonSets, SIM_DAEMONSET, NS);
    assert.deepEqual(ds.spec.template.spec.containers[0].args.slice(3), [
      '--runtime-class=kata-remote-sim',
      '--provider=simulated',
    ]);
    // The default provider's objects were never in question.
    await env.client.get(DaemonSets, ADAPTOR_DAEMONSET, NS);
  });
});
