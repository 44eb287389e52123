import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyDefaults, prepareForUpdate, validate } from '../../../../src/kube/builtins/index.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';

function svc(spec: JsonObject): JsonObject {
  return { metadata: { name: 'web', namespace: 'default' }, spec };
}

function check(spec: JsonObject): string[] {
  const s = svc(spec);
  applyDefaults('', 'Service', s, 'create');
  return validate('', 'Service', s).map((e) => `${e.field}: ${e.message}`);
}

/** An update the way the server runs it: defaults, the strategy's carry-overs, validation. */
function checkUpdate(spec: JsonObject, old: JsonObject): string[] {
  const s = svc(spec);
  applyDefaults('', 'Service', s, 'update');
  prepareForUpdate('', 'Service', s, old);
  return validate('', 'Service', s, old).map((e) => `${e.field}: ${e.message}`);
}

function stored(spec: JsonObject): JsonObject {
  const s = svc(spec);
  applyDefaults('', 'Service', s, 'create');
  return s;
}

describe('Service validation', () => {
  const cases: [string, JsonObject, string[]][] = [
    ['valid ClusterIP', { selector: { app: 'a' }, ports: [{ port: 80 }] }, []],
    ['headless without ports', { clusterIP: 'None', selector: { app: 'a' } }, []],
    ['ExternalName without ports', { type: 'ExternalName', externalName: 'db.example.com.' }, []],
    ['ports required', { selector: { app: 'a' } }, ['spec.ports: Required value']],
    [
      'port range, protocol and targetPort',
      {
        ports: [
          { name: 'a', port: 0 },
          { name: 'b', port: 80, protocol: 'ICMP', targetPort: 70000 },
        ],
      },
      [
        'spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive',
        'spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive',
        'spec.ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
        'spec.ports[1].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
      ],
    ],
    [
      'names required with several ports, unique',
      { ports: [{ port: 80 }, { name: 'x', port: 81 }, { name: 'x', port: 82 }] },
      ['spec.ports[0].name: Required value', 'spec.ports[2].name: Duplicate value: "x"'],
    ],
    [
      'duplicate port and protocol',
      {
        ports: [
          { name: 'a', port: 80 },
          { name: 'b', port: 80 },
          { name: 'c', port: 80, protocol: 'UDP' },
        ],
      },
      [
        'spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}',
      ],
    ],
    [
      'nodePort on ClusterIP',
      { ports: [{ port: 80, nodePort: 30080 }] },
      ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"],
    ],
    [
      'type',
      { type: 'Magic', ports: [{ port: 80 }] },
      [
        'spec.type: Unsupported value: "Magic": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
      ],
    ],
    [
      'headless NodePort',
      { type: 'NodePort', clusterIP: 'None', ports: [{ port: 80 }] },
      ['spec.clusterIPs[0]: Invalid value: "None": may not be set to \'None\' for NodePort services'],
    ],
    ['ExternalName needs a name', { type: 'ExternalName' }, ['spec.externalName: Required value']],
    [
      'bad clusterIP',
      { clusterIP: '10.96.0.300', ports: [{ port: 80 }] },
      [
        'spec.clusterIPs[0]: Invalid value: "10.96.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
      ],
    ],
    [
      'IPv6 on an IPv4 cluster',
      { ipFamilies: ['IPv6'], ports: [{ port: 80 }] },
      ['spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster'],
    ],
    [
      'dual stack required',
      { ipFamilyPolicy: 'RequireDualStack', ports: [{ port: 80 }] },
      [
        'spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services',
      ],
    ],
    [
      'externalTrafficPolicy on ClusterIP',
      { externalTrafficPolicy: 'Local', ports: [{ port: 80 }] },
      ['spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services'],
    ],
    [
      'sessionAffinity',
      { sessionAffinity: 'Sticky', ports: [{ port: 80 }] },
      ['spec.sessionAffinity: Unsupported value: "Sticky": supported values: "ClientIP", "None"'],
    ],
  ];
  for (const [name, spec, want] of cases) {
    it(name, () => assert.deepStrictEqual(check(spec), want));
  }
});

describe('Service updates', () => {
  const old = stored({ clusterIP: '10.96.1.1', selector: { app: 'a' }, ports: [{ port: 80 }] });

  it('accept a resubmitted manifest without clusterIP, carrying over the allocated fields', () => {
    const s = svc({ selector: { app: 'a' }, ports: [{ port: 80 }] });
    applyDefaults('', 'Service', s, 'update');
    prepareForUpdate('', 'Service', s, old);
    assert.deepStrictEqual(validate('', 'Service', s, old), []);
    assert.equal((s.spec as JsonObject).clusterIP, '10.96.1.1');
    assert.deepStrictEqual((s.spec as JsonObject).clusterIPs, ['10.96.1.1']);
    assert.equal((s.spec as JsonObject).ipFamilyPolicy, 'SingleStack');
    assert.deepStrictEqual((s.spec as JsonObject).ipFamilies, ['IPv4']);
  });

  it('keep clusterIP immutable', () => {
    assert.deepStrictEqual(
      checkUpdate({ clusterIP: '10.96.1.2', selector: { app: 'a' }, ports: [{ port: 80 }] }, old),
      ['spec.clusterIPs[0]: Invalid value: []string{"10.96.1.2"}: may not change once set'],
    );
  });

  it('carry node ports over by port name', () => {
    const np = stored({ type: 'NodePort', ports: [{ name: 'http', port: 80, nodePort: 30080 }] });
    (np.spec as JsonObject).clusterIP = '10.96.1.5';
    (np.spec as JsonObject).clusterIPs = ['10.96.1.5'];
    const s = svc({ type: 'NodePort', ports: [{ name: 'http', port: 8080 }] });
    applyDefaults('', 'Service', s, 'update');
    prepareForUpdate('', 'Service', s, np);
    assert.deepStrictEqual((s.spec as JsonObject).ports, [
      { name: 'http', port: 8080, protocol: 'TCP', targetPort: 8080, nodePort: 30080 },
    ]);
  });

  it('drop allocated fields when switching to ExternalName', () => {
    const s = structuredClone(old);
    Object.assign(s.spec as JsonObject, { type: 'ExternalName', externalName: 'db.example.com' });
    applyDefaults('', 'Service', s, 'update');
    prepareForUpdate('', 'Service', s, old);
    const spec = s.spec as JsonObject;
    for (const f of ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy']) assert.equal(spec[f], undefined, f);
    assert.deepStrictEqual(validate('', 'Service', s, old), []);
  });
});
