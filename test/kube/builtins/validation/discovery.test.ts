// EndpointSlice defaults and validation (pkg/apis/discovery/v1/defaults.go,
// pkg/apis/discovery/validation/validation.go), with kube's messages and field paths.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyDefaults, validate } from '../../../../src/kube/builtins/index.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';

function slice(fields: JsonObject): JsonObject {
  return { metadata: { name: 'web-abcde', namespace: 'default' }, ...fields };
}

function check(fields: JsonObject, old?: JsonObject): string[] {
  const s = slice(fields);
  applyDefaults('discovery.k8s.io', 'EndpointSlice', s, old ? 'update' : 'create');
  return validate('discovery.k8s.io', 'EndpointSlice', s, old).map((e) => `${e.field}: ${e.message}`);
}

describe('EndpointSlice', () => {
  it('defaults port names to "" and protocols to TCP', () => {
    const s = slice({ addressType: 'IPv4', endpoints: [], ports: [{ port: 80 }] });
    applyDefaults('discovery.k8s.io', 'EndpointSlice', s, 'create');
    assert.deepEqual(s.ports, [{ port: 80, name: '', protocol: 'TCP' }]);
  });

  const cases: [string, JsonObject, string[]][] = [
    [
      'a controller-written slice',
      {
        addressType: 'IPv4',
        endpoints: [
          {
            addresses: ['127.244.1.5'],
            conditions: { ready: true, serving: true, terminating: false },
            nodeName: 'node-1',
            targetRef: { kind: 'Pod', namespace: 'default', name: 'web', uid: 'u' },
          },
        ],
        ports: [{ name: 'http', protocol: 'TCP', port: 8080 }],
      },
      [],
    ],
    ['a placeholder', { addressType: 'IPv4', endpoints: [], ports: [] }, []],
    ['addressType required', { endpoints: [] }, ['addressType: Required value']],
    [
      'addressType supported',
      { addressType: 'IPv5', endpoints: [] },
      ['addressType: Unsupported value: "IPv5": supported values: "FQDN", "IPv4", "IPv6"'],
    ],
    [
      'addresses required and of the type',
      { addressType: 'IPv4', endpoints: [{ addresses: [] }, { addresses: ['fd00::1'] }] },
      [
        'endpoints[0].addresses: Required value: must contain at least 1 address',
        'endpoints[1].addresses[0]: Invalid value: "fd00::1": must be a valid IPv4 address',
      ],
    ],
    [
      'port names unique DNS labels, protocols supported',
      {
        addressType: 'IPv4',
        endpoints: [],
        ports: [
          { name: 'Web', port: 1 },
          { name: 'a', port: 2, protocol: 'ICMP' },
          { name: 'a', port: 3 },
        ],
      },
      [
        "ports[0].name: Invalid value: \"Web\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        'ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
        'ports[2].name: Duplicate value: "a"',
      ],
    ],
  ];
  for (const [name, fields, want] of cases) it(name, () => assert.deepEqual(check(fields), want));

  it('addressType is immutable', () => {
    const old = slice({ addressType: 'IPv4', endpoints: [] });
    assert.deepEqual(check({ addressType: 'IPv6', endpoints: [] }, old), [
      'addressType: Invalid value: "IPv6": field is immutable',
    ]);
  });
});
