// The Authorization header as kube's bearer-token authenticator reads it
// (staging/src/k8s.io/apiserver/pkg/authentication/request/bearertoken/bearertoken.go): the
// scheme in any case, the header trimmed and split on single spaces, the second field the token.
// A header that is not a bearer token leaves the request to the anonymous authenticator (403
// from RBAC, not 401); a bearer token that does not verify is 401.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../../helpers/control-plane.ts';
import { call } from '../../helpers/https.ts';
import { runPython } from '../../helpers/python.ts';

describe('bearer token scheme', () => {
  let cp: TestCluster;
  before(async () => {
    cp = await startTestCluster();
  });
  after(async () => {
    await cp?.stop();
  });

  const list = (authorization: string) =>
    call(cp, 'GET', '/api/v1/namespaces', undefined, { Authorization: authorization });

  it('accepts the scheme in any case, with surrounding spaces and trailing fields', async () => {
    for (const header of [
      `bearer ${cp.token}`,
      `BEARER ${cp.token}`,
      `  Bearer ${cp.token}  `,
      `Bearer ${cp.token} x`,
    ]) {
      const r = await list(header);
      assert.equal(r.code, 200, `${JSON.stringify(header.replace(cp.token, '<token>'))}: ${r.text}`);
    }
  });

  it('a bearer token that does not verify is 401, whatever the case of the scheme', async () => {
    for (const header of ['bearer not-the-token', 'Bearer not-the-token']) {
      const r = await list(header);
      assert.equal(r.code, 401);
      assert.equal(r.json.reason, 'Unauthorized');
    }
  });

  it('another scheme, or no token, is the anonymous user: 403 from RBAC, public info still readable', async () => {
    for (const header of [`Basic ${Buffer.from('admin:pw').toString('base64')}`, 'Bearer', 'Bearer  two-spaces']) {
      const r = await list(header);
      assert.equal(r.code, 403, header);
      assert.match(String(r.json.message), /User "system:anonymous" cannot list resource "namespaces"/);
      assert.equal((await call(cp, 'GET', '/version', undefined, { Authorization: header })).code, 200);
    }
  });

  it('the Python client with a lower-case `bearer` api_key_prefix is served', async () => {
    const r = await runPython(
      cp.kubeconfigPath,
      `
import json, sys
from kubernetes import client, config
cfg = client.Configuration()
config.load_kube_config(config_file=sys.argv[1], client_configuration=cfg)
token = cfg.api_key['authorization'].split(' ', 1)[1]
cfg.api_key = {'authorization': token}
cfg.api_key_prefix = {'authorization': 'bearer'}
names = [n.metadata.name for n in client.CoreV1Api(client.ApiClient(cfg)).list_namespace().items]
print(json.dumps({'default': 'default' in names}))
`,
    );
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.json(), { default: true });
  });
});
