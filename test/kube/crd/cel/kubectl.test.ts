// x-kubernetes-validations through the API server, as a kubectl user meets them: a CRD whose rule
// does not compile is refused (apiextensions-apiserver pkg/apis/apiextensions/validation/
// validation.go), and a served CRD's rules refuse objects with kube's messages
// (pkg/apiserver/schema/cel/validation.go).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { kubectl } from '../../../helpers/kubectl.ts';
import { eventually, startTestCluster } from '../../../helpers/control-plane.ts';
import type { TestCluster } from '../../../helpers/control-plane.ts';
import { specSchema, widgetCrd } from '../fixtures.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';

const crdWith = (rules: JsonObject[]) =>
  widgetCrd(
    specSchema(
      { replicas: { type: 'integer' }, minReplicas: { type: 'integer' } },
      { 'x-kubernetes-validations': rules },
    ),
  );

const widget = (name: string, spec: JsonObject) =>
  JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace: 'default' }, spec });

describe('x-kubernetes-validations with kubectl', () => {
  let cluster: TestCluster;
  before(async () => (cluster = await startTestCluster()));
  after(() => cluster.stop());
  const run = (args: string[], input?: string) =>
    kubectl(cluster.kubeconfigPath, args, input === undefined ? {} : { input });

  it('refuses a CRD whose rule does not compile, naming the rule and the error', async () => {
    const bad = await run(['create', '-f', '-'], JSON.stringify(crdWith([{ rule: 'self.replicas >= 1 ++' }])));
    assert.notEqual(bad.code, 0);
    assert.match(
      bad.stderr,
      /The CustomResourceDefinition "widgets\.example\.com" is invalid: spec\.validation\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: .*"Rule":"self\.replicas \\u003e= 1 \+\+".*: compilation failed: ERROR: <input>:1:20: Syntax error: /,
    );
    const get = await run(['get', 'crd', 'widgets.example.com']);
    assert.notEqual(get.code, 0, 'the CRD must not have been stored');
  });

  it('enforces rules, messageExpression and transition rules on served objects', async () => {
    const rules = [
      {
        rule: 'self.minReplicas <= self.replicas',
        messageExpression: "'minReplicas ' + string(self.minReplicas) + ' exceeds replicas'",
      },
      { rule: 'self.replicas >= oldSelf.replicas', message: 'replicas may not shrink' },
    ];
    const created = await run(['create', '-f', '-'], JSON.stringify(crdWith(rules)));
    assert.equal(created.code, 0, created.stderr);
    await eventually(async () => (await run(['get', 'widgets'])).code === 0, { what: 'widgets served' });

    const bad = await run(['create', '-f', '-'], widget('bad', { replicas: 1, minReplicas: 2 }));
    assert.match(
      bad.stderr,
      /The Widget "bad" is invalid: spec: Invalid value: "object": minReplicas 2 exceeds replicas/,
    );

    const ok = await run(['create', '-f', '-'], widget('ok', { replicas: 3, minReplicas: 1 }));
    assert.equal(ok.code, 0, ok.stderr);
    const shrink = await run(['patch', 'widget', 'ok', '--type=merge', '-p', '{"spec":{"replicas":2}}']);
    assert.match(shrink.stderr, /spec: Invalid value: "object": replicas may not shrink/);
    const grow = await run(['patch', 'widget', 'ok', '--type=merge', '-p', '{"spec":{"replicas":4}}']);
    assert.equal(grow.code, 0, grow.stderr);
  });
});
