// The PeerPodConfig CRD: defaults, limit as an integer or a string of digits, exactly one of limit
// and limitPerNode — all enforced by the API server (422 naming the field).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError } from '../../../src/runtime/index.ts';
import { PeerPodConfigs, peerPodConfigCrd } from '../../../src/peerpod/api/index.ts';
import type { PeerPodConfig } from '../../../src/peerpod/api/index.ts';
import { NS, createConfig, startEnv } from './helpers.ts';
import { kubectl } from '../../helpers/kubectl.ts';
import type { Env } from './helpers.ts';

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

async function rejected(p: Promise<unknown>, field: RegExp): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof ApiError, String(err));
    assert.equal(err.code, 422);
    assert.match(err.message, field);
    return true;
  });
}

describe('PeerPodConfig CRD', () => {
  let env: Env;
  before(async () => (env = await startEnv(0)));
  after(() => env.stop());

  it('has printer columns and the status subresource', () => {
    const v = (peerPodConfigCrd().spec as { versions: Array<Record<string, unknown>> }).versions[0];
    assert.deepEqual(v.subresources, { status: {} });
    assert.deepEqual(
      (v.additionalPrinterColumns as Array<{ name: string }>).map((c) => c.name),
      ['Limit', 'Per-Node', 'Nodes', 'VMs', 'Ready', 'Age'],
    );
  });

  it('defaults the secret, config map and node selector', async () => {
    const c = await createConfig(env, 'defaults', { limit: '10' });
    assert.equal(c.spec.cloudSecretName, 'peer-pods-secret');
    assert.equal(c.spec.configMapName, 'peer-pods-cm');
    assert.deepEqual(c.spec.nodeSelector, { 'node.kubernetes.io/worker': '' });
    await env.client.delete(PeerPodConfigs, 'defaults', NS);
  });

  it('accepts limit as an integer or as a string of digits (upstream), and limitPerNode', async () => {
    for (const [name, spec] of [
      ['int', { limit: 5 }],
      ['str', { limit: '5' }],
      ['zero', { limit: 0 }],
      ['pernode', { limitPerNode: 3 }],
    ] as const) {
      const c = await createConfig(env, name, spec);
      assert.deepEqual(
        { limit: c.spec.limit, limitPerNode: c.spec.limitPerNode },
        { limit: (spec as { limit?: unknown }).limit, limitPerNode: (spec as { limitPerNode?: unknown }).limitPerNode },
      );
      await env.client.delete(PeerPodConfigs, name, NS);
    }
  });

  it('rejects a limit that is not a non-negative integer with 422 naming spec.limit', async () => {
    for (const limit of ['abc', '-1', '1.5', '', -1, 1_000_000]) {
      await rejected(createConfig(env, 'bad', { limit }), /spec\.limit/);
    }
    await rejected(createConfig(env, 'bad', { limitPerNode: -2 }), /spec\.limitPerNode/);
    await rejected(
      createConfig(env, 'bad', { limitPerNode: 'x' } as unknown as PeerPodConfig['spec']),
      /spec\.limitPerNode/,
    );
  });

  // Issue #16: a oneOf said only `<nil>: Invalid value: "": "spec" must validate one and only one
  // schema (oneOf)`. The rules' errors name the fields, as kube reports a failed
  // x-kubernetes-validations rule with a reason and fieldPath (apiextensions-apiserver
  // pkg/apiserver/schema/cel/validation.go: field.Forbidden / field.Required at the rule's path).
  it('requires exactly one of limit and limitPerNode, naming the fields', async () => {
    const exclusive =
      'PeerPodConfig.confidentialcontainers.org "both" is invalid: spec.limitPerNode: Forbidden: ' +
      'limit and limitPerNode are exclusive: set one of them';
    await rejected(createConfig(env, 'both', { limit: 2, limitPerNode: 2 }), new RegExp(`^${escape(exclusive)}$`));
    const missing =
      'PeerPodConfig.confidentialcontainers.org "none" is invalid: spec.limit: Required value: ' +
      'set limit (pod VMs for the whole cluster) or limitPerNode (pod VMs per node)';
    await rejected(createConfig(env, 'none', {}), new RegExp(`^${escape(missing)}$`));
    // What kubectl shows a user.
    const manifest = (name: string, spec: string) =>
      `apiVersion: confidentialcontainers.org/v1alpha1\nkind: PeerPodConfig\nmetadata:\n  name: ${name}\n  namespace: ${NS}\nspec: ${spec}\n`;
    for (const version of ['1.27', '1.33']) {
      const both = await kubectl(env.cluster.kubeconfigPath, ['create', '-f', '-'], {
        version,
        input: manifest('both', '{limit: "2", limitPerNode: 2}'),
      });
      assert.notEqual(both.code, 0);
      assert.match(both.stderr, /spec\.limitPerNode: Forbidden: limit and limitPerNode are exclusive/);
      assert.doesNotMatch(both.stderr, /oneOf|<nil>/);
      const none = await kubectl(env.cluster.kubeconfigPath, ['create', '-f', '-'], {
        version,
        input: manifest('none', '{}'),
      });
      assert.match(
        none.stderr,
        /spec\.limit: Required value: set limit \(pod VMs for the whole cluster\) or limitPerNode/,
      );
    }
  });

  // Issue #16: an int-or-string has no `type`, so kubectl printed `<Object>`. It reads as the
  // built-in int-or-string fields do against kube-apiserver (kubectl's explain template names a
  // field referring to the IntOrString model `<IntOrString>`: kubectl pkg/explain/v2/templates/plaintext.tmpl).
  it('kubectl explain shows limit as an IntOrString, as deployment maxSurge', async () => {
    for (const version of ['1.27', '1.33']) {
      const limit = await kubectl(env.cluster.kubeconfigPath, ['explain', 'peerpodconfig.spec.limit'], { version });
      assert.equal(limit.code, 0, limit.stderr);
      assert.match(limit.stdout, /FIELD: limit <IntOrString>/);
      assert.match(limit.stdout, /Pod VMs for the whole cluster/);
      const maxSurge = await kubectl(
        env.cluster.kubeconfigPath,
        ['explain', 'deployment.spec.strategy.rollingUpdate.maxSurge'],
        { version },
      );
      assert.match(maxSurge.stdout, /FIELD: maxSurge <IntOrString>/);
      const spec = await kubectl(env.cluster.kubeconfigPath, ['explain', 'peerpodconfig.spec'], { version });
      assert.match(spec.stdout, /limit\t<IntOrString>/);
    }
    // Still validated as before: a string of digits or an integer.
    await createConfig(env, 'explained', { limit: 3 });
    await env.client.delete(PeerPodConfigs, 'explained', NS);
  });
});
