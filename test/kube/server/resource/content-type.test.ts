// A request body's Content-Type is read as Go's mime.ParseMediaType reads it, and kube decodes a
// body only in a media type it parsed and serves
// (apimachinery/pkg/runtime/serializer/.../negotiation: NegotiateInputSerializerForMediaType):
// an absent or empty header means JSON; one that does not parse, or names nothing served, is
// 415 UnsupportedMediaType. Patches take the type before the first `;` as is
// (endpoints/handlers/patch.go), so an unknown one is 415 too.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { call, type Reply } from '../../../helpers/https.ts';

const UNSUPPORTED = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message:
    'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
  reason: 'UnsupportedMediaType',
  code: 415,
};

describe('request Content-Type', () => {
  let cp: TestCluster;
  let n = 0;
  before(async () => {
    cp = await startTestCluster({ nodes: 0 });
  });
  after(async () => {
    await cp?.stop();
  });

  const create = (contentType: string | undefined): Promise<Reply> =>
    call(
      cp,
      'POST',
      '/api/v1/namespaces/default/configmaps',
      Buffer.from(JSON.stringify({ metadata: { name: `ct-${++n}` } })),
      contentType === undefined ? {} : { 'Content-Type': contentType },
    );

  it('a header Go cannot parse is 415, never decoded as JSON', async () => {
    for (const header of [
      ';;;;==;',
      ';',
      '/json',
      'application/',
      'application/json/x',
      'application/json; charset',
      'application/json; a=1; a=2',
      'application/json;;',
      'application/json; charset="utf-8',
    ]) {
      const r = await create(header);
      assert.equal(r.code, 415, `${JSON.stringify(header)}: ${r.text}`);
      assert.deepEqual(r.json, UNSUPPORTED);
    }
  });

  it('well-formed types with parameters, in any case, with a trailing `;`, or none at all are JSON', async () => {
    for (const header of [
      undefined,
      'application/json',
      'Application/JSON',
      'application/json; charset=utf-8',
      'application/json ; charset="utf-8"',
      'application/json;',
    ]) {
      const r = await create(header);
      assert.equal(r.code, 201, `${JSON.stringify(header)}: ${r.text}`);
    }
  });

  it('names that are only JavaScript object keys are unknown types, for objects and patches', async () => {
    for (const header of ['constructor', 'toString', '__proto__']) {
      assert.equal((await create(header)).code, 415, header);
      const patched = await call(
        cp,
        'PATCH',
        '/api/v1/namespaces/default/configmaps/ct-1',
        { data: { a: 'b' } },
        {
          'Content-Type': header,
        },
      );
      assert.equal(patched.code, 415, `PATCH ${header}: ${patched.text}`);
      assert.equal(patched.json.reason, 'UnsupportedMediaType');
    }
  });
});
