// `kubectl auth can-i` (1.27 and 1.33) against RBAC: yes/no with exit codes 0/1, subresources,
// non-resource URLs, `--list` (SelfSubjectRulesReview) and `--as` (impersonation). Output format:
// kubernetes/kubectl:pkg/cmd/auth/cani.go ("yes", "no[ - reason]", the --list table).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { kubectl } from '../../../helpers/kubectl.ts';
import { callAs, kubeconfigFor } from '../as-user.ts';

const VERSIONS = ['1.27', '1.33'];
const NS = 'team';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';

/** The --list table's rows as cell arrays (kubectl pads with spaces; an empty first cell stays ''). */
function rows(table: string): string[][] {
  return table
    .trimEnd()
    .split('\n')
    .map((line) => line.split(/\s{2,}/).map((c) => c.trim()));
}

describe('kubectl auth can-i', () => {
  let cp: TestCluster;
  let alice: string;

  before(async () => {
    cp = await startTestCluster({
      nodes: 0,
      users: [{ token: 'alice-token', user: { username: 'alice', groups: [] } }],
    });
    const create = async (path: string, obj: object) => {
      const r = await callAs(cp, cp.token, 'POST', path, obj);
      assert.equal(r.status, 201, r.body);
    };
    await create('/api/v1/namespaces', { metadata: { name: NS } });
    await create(`${RBAC}/namespaces/${NS}/roles`, {
      metadata: { name: 'pod-reader' },
      rules: [
        { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
        { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] },
      ],
    });
    // The ServiceAccount subject has no namespace: it is the binding's.
    await create(`${RBAC}/namespaces/${NS}/rolebindings`, {
      metadata: { name: 'read-pods' },
      subjects: [
        { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' },
        { kind: 'ServiceAccount', name: 'robot' },
      ],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
    });
    alice = kubeconfigFor(cp, 'alice', 'alice-token');
  });
  after(() => cp.stop());

  for (const version of VERSIONS) {
    const canI = (kubeconfig: string, ...args: string[]) =>
      kubectl(kubeconfig, ['auth', 'can-i', ...args], { version });

    test(`${version}: yes (exit 0) and no (exit 1)`, async () => {
      assert.deepEqual(await canI(alice, 'get', 'pods', '-n', NS), { code: 0, stdout: 'yes\n', stderr: '' });
      assert.deepEqual(await canI(alice, 'list', 'pods', '-n', NS), { code: 0, stdout: 'yes\n', stderr: '' });
      assert.deepEqual(await canI(alice, 'delete', 'pods', '-n', NS), { code: 1, stdout: 'no\n', stderr: '' });
      assert.deepEqual(await canI(alice, 'get', 'pods', '-n', 'default'), { code: 1, stdout: 'no\n', stderr: '' });
      // The admin (system:masters) may do anything.
      assert.deepEqual(await canI(cp.kubeconfigPath, 'delete', 'secrets', '-n', 'kube-system'), {
        code: 0,
        stdout: 'yes\n',
        stderr: '',
      });
    });

    test(`${version}: subresources and non-resource URLs`, async () => {
      assert.equal((await canI(alice, '--subresource=log', 'get', 'pods', '-n', NS)).stdout, 'yes\n');
      const exec = await canI(alice, '--subresource=exec', 'create', 'pods', '-n', NS);
      assert.deepEqual([exec.code, exec.stdout], [1, 'no\n']);
      assert.deepEqual(await canI(alice, 'get', '/healthz'), { code: 0, stdout: 'yes\n', stderr: '' });
      assert.deepEqual(await canI(alice, 'get', '/logs'), { code: 1, stdout: 'no\n', stderr: '' });
    });

    test(`${version}: --list prints the namespace's rules`, async () => {
      const r = await canI(alice, '--list', '-n', NS);
      assert.equal(r.code, 0, r.stderr);
      const table = rows(r.stdout);
      assert.deepEqual(table[0], ['Resources', 'Non-Resource URLs', 'Resource Names', 'Verbs']);
      const body = table.slice(1).map((cells) => cells.join(' | '));
      for (const row of [
        'pods | [] | [] | [get list]',
        'pods/log | [] | [] | [get]',
        'selfsubjectaccessreviews.authorization.k8s.io | [] | [] | [create]',
        'selfsubjectrulesreviews.authorization.k8s.io | [] | [] | [create]',
        ' | [/api/*] | [] | [get]',
      ])
        assert.ok(body.includes(row), `${row} in\n${r.stdout}`);
      // Another namespace: alice's RoleBinding does not apply there.
      const other = await canI(alice, '--list', '-n', 'default');
      assert.ok(!/^pods\s/m.test(other.stdout), other.stdout);
    });

    test(`${version}: --as a ServiceAccount`, async () => {
      const as = '--as=system:serviceaccount:team:robot';
      assert.deepEqual(await canI(cp.kubeconfigPath, 'list', 'pods', '-n', NS, as), {
        code: 0,
        stdout: 'yes\n',
        stderr: '',
      });
      const del = await canI(cp.kubeconfigPath, 'delete', 'pods', '-n', NS, as);
      assert.deepEqual([del.code, del.stdout], [1, 'no\n']);
      const list = await canI(cp.kubeconfigPath, '--list', '-n', NS, as);
      assert.equal(list.code, 0, list.stderr);
      const body = rows(list.stdout).map((cells) => cells.join(' | '));
      assert.ok(body.includes('pods | [] | [] | [get list]'), list.stdout);
      // Service accounts are in system:serviceaccounts, bound to the issuer-discovery role.
      assert.ok(body.includes(' | [/openid/v1/jwks] | [] | [get]'), list.stdout);
    });
  }
});
