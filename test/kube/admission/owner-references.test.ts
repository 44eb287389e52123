// The OwnerReferencesPermissionEnforcement admission plugin over HTTP, as a non-admin user whose
// rights come from RBAC. Behaviour and messages: kubernetes/kubernetes
// plugin/pkg/admission/gc/gc_admission.go (Validate, ownerRefToDeleteAttributeRecords,
// newBlockingOwnerDeletionRefs); the 403's shape: apiserver/pkg/admission/errors.go (NewForbidden);
// the unresolvable kind's text: apimachinery/pkg/api/meta/errors.go (NoKindMatchError).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startControlPlane } from '../../../src/kube/index.ts';
import { startTestCluster } from '../../helpers/control-plane.ts';
import { kubectl } from '../../helpers/kubectl.ts';
import { callAs, kubeconfigFor } from '../auth/as-user.ts';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const ALICE = 'alice-token';
const USERS = [{ token: ALICE, user: { username: 'alice', groups: [] } }];
const CAN_NOT_DELETE = "cannot set an ownerRef on a resource you can't delete: , <nil>";
const CAN_NOT_FINALIZE =
  "cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: , <nil>";

type Rule = { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] };
type Response = Awaited<ReturnType<typeof callAs>>;

const WRITE_CONFIGMAPS: Rule = { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'create', 'update'] };
const DELETE_CONFIGMAPS: Rule = { apiGroups: [''], resources: ['configmaps'], verbs: ['delete'] };
const FINALIZE_PODS: Rule = { apiGroups: [''], resources: ['pods/finalizers'], verbs: ['update'] };

/** A cluster with alice, a user whose rights the tests grant namespace by namespace. */
async function clusterWith(admissionPlugins: string[] | undefined) {
  const cp = await startTestCluster({ nodes: 0, users: USERS, admissionPlugins });
  const admin = (method: string, path: string, body?: unknown) => callAs(cp, cp.token, method, path, body);
  const must = async (p: Promise<Response>) => {
    const r = await p;
    assert.ok(r.status === 200 || r.status === 201, r.body);
    return r;
  };
  return {
    cp,
    admin,
    must,
    asAlice: (method: string, path: string, body?: unknown) => callAs(cp, ALICE, method, path, body),
    /** A namespace with an owner Pod, where alice holds `rules`; the Pod's ownerReference. */
    async namespaceWith(ns: string, rules: Rule[]) {
      await must(admin('POST', '/api/v1/namespaces', { metadata: { name: ns } }));
      await must(admin('POST', `${RBAC}/namespaces/${ns}/roles`, { metadata: { name: 'alice' }, rules }));
      await must(
        admin('POST', `${RBAC}/namespaces/${ns}/rolebindings`, {
          metadata: { name: 'alice' },
          subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }],
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'alice' },
        }),
      );
      const pod = await must(
        admin('POST', `/api/v1/namespaces/${ns}/pods`, {
          metadata: { name: 'owner' },
          spec: { containers: [{ name: 'c', image: 'busybox' }] },
        }),
      );
      const uid = (pod.json.metadata as { uid: string }).uid;
      return (blockOwnerDeletion?: boolean) => ({
        apiVersion: 'v1',
        kind: 'Pod',
        name: 'owner',
        uid,
        ...(blockOwnerDeletion === undefined ? {} : { blockOwnerDeletion }),
      });
    },
  };
}

const configMap = (name: string, ownerReferences?: object[], labels?: Record<string, string>) => ({
  metadata: { name, ...(ownerReferences ? { ownerReferences } : {}), ...(labels ? { labels } : {}) },
  data: { k: 'v' },
});

function assertForbidden(r: Response, name: string, why: string): void {
  assert.equal(r.status, 403, r.body);
  assert.equal(r.json.reason, 'Forbidden');
  assert.equal(r.json.message, `configmaps "${name}" is forbidden: ${why}`);
  assert.deepEqual(r.json.details, { name, kind: 'configmaps' });
}

describe('OwnerReferencesPermissionEnforcement off (the default)', () => {
  let c: Awaited<ReturnType<typeof clusterWith>>;
  before(async () => {
    c = await clusterWith(undefined);
  });
  after(() => c.cp.stop());

  test('ownerReferences and blockOwnerDeletion need no right beyond the write itself', async () => {
    const owner = await c.namespaceWith('off', [WRITE_CONFIGMAPS]);
    await c.must(c.asAlice('POST', '/api/v1/namespaces/off/configmaps', configMap('cm')));
    const r = await c.asAlice('PUT', '/api/v1/namespaces/off/configmaps/cm', configMap('cm', [owner(true)]));
    assert.equal(r.status, 200, r.body);
  });
});

describe('OwnerReferencesPermissionEnforcement on', () => {
  let c: Awaited<ReturnType<typeof clusterWith>>;
  before(async () => {
    c = await clusterWith(['OwnerReferencesPermissionEnforcement']);
  });
  after(() => c.cp.stop());

  test('changing the ownerReferences of an object takes delete on it', async () => {
    const owner = await c.namespaceWith('no-delete', [WRITE_CONFIGMAPS]);
    await c.must(c.asAlice('POST', '/api/v1/namespaces/no-delete/configmaps', configMap('cm')));
    const path = '/api/v1/namespaces/no-delete/configmaps/cm';
    assertForbidden(await c.asAlice('PUT', path, configMap('cm', [owner()])), 'cm', CAN_NOT_DELETE);
    // Writes that leave the references alone are not checked.
    assert.equal((await c.asAlice('PUT', path, configMap('cm', undefined, { a: 'b' }))).status, 200);
  });

  test('creating an object with ownerReferences takes no delete right (the creator could have not created it)', async () => {
    const owner = await c.namespaceWith('create', [WRITE_CONFIGMAPS]);
    const r = await c.asAlice('POST', '/api/v1/namespaces/create/configmaps', configMap('cm', [owner(false)]));
    assert.equal(r.status, 201, r.body);
  });

  test("blockOwnerDeletion=true takes update on the owner's finalizers, named and in the namespace", async () => {
    const owner = await c.namespaceWith('no-finalizers', [WRITE_CONFIGMAPS, DELETE_CONFIGMAPS]);
    const r = await c.asAlice('POST', '/api/v1/namespaces/no-finalizers/configmaps', configMap('cm', [owner(true)]));
    assertForbidden(r, 'cm', CAN_NOT_FINALIZE);

    const other = await c.namespaceWith('other-pod', [
      WRITE_CONFIGMAPS,
      { ...FINALIZE_PODS, resourceNames: ['not-the-owner'] },
    ]);
    const o = await c.asAlice('POST', '/api/v1/namespaces/other-pod/configmaps', configMap('cm', [other(true)]));
    assertForbidden(o, 'cm', CAN_NOT_FINALIZE);
  });

  test('with delete on the object and update on pods/finalizers, both are allowed', async () => {
    const owner = await c.namespaceWith('allowed', [
      WRITE_CONFIGMAPS,
      DELETE_CONFIGMAPS,
      { ...FINALIZE_PODS, resourceNames: ['owner'] },
    ]);
    const r = await c.asAlice('POST', '/api/v1/namespaces/allowed/configmaps', configMap('cm', [owner(true)]));
    assert.equal(r.status, 201, r.body);
    await c.must(c.asAlice('POST', '/api/v1/namespaces/allowed/configmaps', configMap('later')));
    const u = await c.asAlice('PUT', '/api/v1/namespaces/allowed/configmaps/later', configMap('later', [owner(true)]));
    assert.equal(u.status, 200, u.body);
  });

  test('blockOwnerDeletion=false, or a reference already blocking, takes no finalizers right', async () => {
    const owner = await c.namespaceWith('not-blocking', [WRITE_CONFIGMAPS, DELETE_CONFIGMAPS]);
    const ns = '/api/v1/namespaces/not-blocking/configmaps';
    assert.equal((await c.asAlice('POST', ns, configMap('cm', [owner(false)]))).status, 201);
    // false → true is a new block.
    assertForbidden(await c.asAlice('PUT', `${ns}/cm`, configMap('cm', [owner(true)])), 'cm', CAN_NOT_FINALIZE);
    // A block the admin set stays when alice changes the reference otherwise.
    await c.must(c.admin('PUT', `${ns}/cm`, configMap('cm', [owner(true)])));
    const kept = await c.asAlice('PUT', `${ns}/cm`, configMap('cm', [{ ...owner(true), controller: true }]));
    assert.equal(kept.status, 200, kept.body);
  });

  test('a cluster-scoped owner is authorized without a namespace: only a ClusterRole grants it', async () => {
    await c.namespaceWith('cluster-owner', [
      WRITE_CONFIGMAPS,
      { apiGroups: [''], resources: ['namespaces/finalizers'], verbs: ['update'] },
    ]);
    const nsObj = await c.must(c.admin('GET', '/api/v1/namespaces/cluster-owner'));
    const ref = {
      apiVersion: 'v1',
      kind: 'Namespace',
      name: 'cluster-owner',
      uid: (nsObj.json.metadata as { uid: string }).uid,
      blockOwnerDeletion: true,
    };
    const path = '/api/v1/namespaces/cluster-owner/configmaps';
    assertForbidden(await c.asAlice('POST', path, configMap('cm', [ref])), 'cm', CAN_NOT_FINALIZE);
    await c.must(
      c.admin('POST', `${RBAC}/clusterroles`, {
        metadata: { name: 'finalize-namespaces' },
        rules: [{ apiGroups: [''], resources: ['namespaces/finalizers'], verbs: ['update'] }],
      }),
    );
    await c.must(
      c.admin('POST', `${RBAC}/clusterrolebindings`, {
        metadata: { name: 'alice-finalize-namespaces' },
        subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }],
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'finalize-namespaces' },
      }),
    );
    const r = await c.asAlice('POST', path, configMap('cm', [ref]));
    assert.equal(r.status, 201, r.body);
  });

  test("an owner kind the server does not serve is refused with the RESTMapper's error", async () => {
    await c.namespaceWith('unknown-kind', [WRITE_CONFIGMAPS]);
    const ref = { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: 'u-1', blockOwnerDeletion: true };
    const r = await c.asAlice('POST', '/api/v1/namespaces/unknown-kind/configmaps', configMap('cm', [ref]));
    assertForbidden(
      r,
      'cm',
      'cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion example.com/v1 ' +
        'Kind Widget: no matches for kind "Widget" in version "example.com/v1"',
    );
  });

  test('system:masters (the admin, and in-process controllers) is never refused', async () => {
    const owner = await c.namespaceWith('admin', []);
    const r = await c.admin('POST', '/api/v1/namespaces/admin/configmaps', configMap('cm', [owner(true)]));
    assert.equal(r.status, 201, r.body);
  });

  test('kubectl shows the refusal', async () => {
    const owner = await c.namespaceWith('kubectl', [WRITE_CONFIGMAPS]);
    const manifest = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', ...configMap('cm', [owner(true)]) });
    const r = await kubectl(kubeconfigFor(c.cp, 'alice', ALICE), ['-n', 'kubectl', 'create', '-f', '-'], {
      input: manifest,
    });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /Error from server \(Forbidden\)/);
    assert.ok(r.stderr.includes(`configmaps "cm" is forbidden: ${CAN_NOT_FINALIZE}`), r.stderr);
  });
});

test('an admission plugin the server does not implement fails the start', async () => {
  await assert.rejects(
    startControlPlane({ nodes: 0, admissionPlugins: ['AlwaysPullImages'] }),
    /enable-admission-plugins plugin "AlwaysPullImages" is unknown/,
  );
});
