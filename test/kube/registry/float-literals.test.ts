// Go's encoding/json refuses a number written with a fraction or exponent for an integer field,
// whatever its value (decode.go: literalStore → UnmarshalTypeError{Value: "number " + literal});
// kube-apiserver answers it like any other wrong type. JSON.parse cannot tell 80.0 from 80, so
// the body's literals are kept for the typed decoding (apimachinery/json/float-literals.ts).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../../helpers/control-plane.ts';
import { call } from '../../helpers/https.ts';

let cp: TestCluster;
before(async () => {
  cp = await startTestCluster();
});
after(async () => {
  await cp?.stop();
});

const pod = (port: string) =>
  Buffer.from(
    `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p${Math.random().toString(36).slice(2, 8)}"},` +
      `"spec":{"containers":[{"name":"c","image":"x","ports":[{"containerPort":${port}}]}]}}`,
  );

test('an integer field written as 80.0 or 8e1 is refused with the literal, as kube does', async () => {
  for (const literal of ['80.0', '8e1', '8.0E+1']) {
    const r = await call(cp, 'POST', '/api/v1/namespaces/default/pods', pod(literal));
    assert.equal(r.code, 400, r.text);
    assert.equal(r.json.reason, 'BadRequest');
    assert.equal(
      r.json.message,
      `Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number ${literal} into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32`,
    );
  }
});

test('the same number written as an integer is stored; fractions in strings and float fields are fine', async () => {
  assert.equal((await call(cp, 'POST', '/api/v1/namespaces/default/pods', pod('80'))).code, 201);
  const cm = await call(
    cp,
    'POST',
    '/api/v1/namespaces/default/configmaps',
    Buffer.from('{"metadata":{"name":"floats"},"data":{"v":"2.0","w":"1e3"}}'),
  );
  assert.equal(cm.code, 201, cm.text);
  // An update through PUT is decoded the same way.
  const dep = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd' },
    spec: {
      selector: { matchLabels: { a: 'b' } },
      template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
    },
  };
  const created = await call(cp, 'POST', '/apis/apps/v1/namespaces/default/deployments', dep);
  assert.equal(created.code, 201, created.text);
  const body = JSON.stringify({ ...created.json, spec: { ...(created.json.spec as object), replicas: 2 } }).replace(
    '"replicas":2',
    '"replicas":2.0',
  );
  const put = await call(cp, 'PUT', '/apis/apps/v1/namespaces/default/deployments/d', Buffer.from(body));
  assert.equal(put.code, 400, put.text);
  assert.match(
    String(put.json.message),
    /json: cannot unmarshal number 2\.0 into Go struct field DeploymentSpec\.spec\.replicas of type int32$/,
  );
});
