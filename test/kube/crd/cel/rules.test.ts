// x-kubernetes-validations evaluated by the server with @bufbuild/cel, with kube 1.33's error
// shapes (apiextensions-apiserver pkg/apiserver/schema/cel/validation.go, validateExpressions):
// a failed rule is `<path>: Invalid value: "<schema type>": <message>` (messageExpression, else
// message, else `failed rule: <rule>`), moved by fieldPath, Forbidden/Required/Duplicate by
// reason; transition rules only run on an update; a rule that does not compile refuses the CRD
// (pkg/apis/apiextensions/validation/validation.go, pkg/apiserver/schema/cel/compilation.go).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateRules } from '../../../../src/kube/crd/cel/rules.ts';
import { toStructural } from '../../../../src/kube/crd/schema/structural.ts';
import { validateCrd } from '../../../../src/kube/crd/index.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';
import { lines, specSchema, widgetCrd } from '../fixtures.ts';

const SPEC_PROPERTIES = {
  replicas: { type: 'integer' },
  minReplicas: { type: 'integer' },
  ratio: { type: 'number' },
  name: { type: 'string' },
  items: { type: 'array', items: { type: 'string' } },
  size: { 'x-kubernetes-int-or-string': true },
};

const schema = (rules: JsonObject[]) =>
  toStructural({
    type: 'object',
    properties: { spec: { type: 'object', properties: SPEC_PROPERTIES, 'x-kubernetes-validations': rules } },
  });

const messages = (rules: JsonObject[], spec: JsonObject, old?: JsonObject) =>
  validateRules(schema(rules), null, { spec }, old && { spec: old }).map((e) => `${e.field}: ${e.message}`);

const ok = (rule: string, spec: JsonObject) => messages([{ rule }], spec).length === 0;

describe('x-kubernetes-validations', () => {
  it('reports a failed rule at its node, with its message or the rule', () => {
    assert.deepEqual(messages([{ rule: 'self.replicas >= 1', message: 'at least one replica' }], { replicas: 0 }), [
      'spec: Invalid value: "object": at least one replica',
    ]);
    assert.deepEqual(messages([{ rule: 'self.replicas >= 1' }], { replicas: 0 }), [
      'spec: Invalid value: "object": failed rule: self.replicas >= 1',
    ]);
    assert.deepEqual(messages([{ rule: 'self.replicas >= 1' }], { replicas: 3 }), []);
  });

  it('reports a rule on a scalar with the schema type as its value', () => {
    const s = toStructural({
      type: 'object',
      properties: { replicas: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self < 10' }] } },
    });
    assert.deepEqual(lines(validateRules(s, 'spec', { replicas: 12 })), [
      'spec.replicas: Invalid value: "integer": failed rule: self < 10',
    ]);
  });

  it('moves the error by fieldPath and picks its kind by reason', () => {
    const rules = [
      {
        rule: '!(has(self.name) && has(self.size))',
        message: 'exclusive',
        reason: 'FieldValueForbidden',
        fieldPath: '.size',
      },
      {
        rule: 'has(self.name) || has(self.size)',
        message: 'set one',
        reason: 'FieldValueRequired',
        fieldPath: '.name',
      },
    ];
    assert.deepEqual(messages(rules, { name: 'a', size: 1 }), ['spec.size: Forbidden: exclusive']);
    assert.deepEqual(messages(rules, {}), ['spec.name: Required value: set one']);
    assert.deepEqual(messages(rules, { size: '2' }), []);
  });

  it('evaluates ==, has(), size(), ?:, && and || with integers as CEL ints', () => {
    const spec = { replicas: 4, minReplicas: 2, ratio: 0.5, name: 'web-1', items: ['a', 'b'], size: 3 };
    assert.ok(ok('self.replicas == 4 && self.name == "web-1"', spec));
    assert.ok(ok('has(self.name) && !has(self.other)', spec));
    assert.ok(ok('size(self.items) == 2 && self.name.size() == 5', spec));
    assert.ok(ok('has(self.other) ? self.other == 1 : self.replicas > 0', spec));
    assert.ok(ok('self.replicas < 0 || self.items[1] == "b"', spec));
    assert.ok(ok('self.minReplicas <= self.replicas', spec));
    assert.ok(!ok('self.replicas <= self.minReplicas', spec));
    // Integer fields are CEL ints: integer division, and int-only functions apply.
    assert.ok(ok('self.replicas / 3 == 1 && self.replicas % 3 == 1 && self.size == 3', spec));
    assert.ok(ok('self.ratio == 0.5 && self.ratio * 2.0 == 1.0', spec));
    assert.ok(ok("self.items.all(i, i.size() == 1) && self.items.exists(i, i == 'b')", spec));
    assert.ok(ok("self.name.startsWith('web') && self.name.matches('^[a-z]+-[0-9]$')", spec));
    assert.ok(ok("self.name.upperAscii() == 'WEB-1'", spec));
  });

  it('reports evaluation errors as kube does', () => {
    assert.deepEqual(messages([{ rule: 'self.name == "x"' }], { replicas: 1 }), [
      'spec: Invalid value: "object": no such key: name evaluating rule: self.name == "x"',
    ]);
    // ruleErrorString: the message, when there is one, stands for the rule.
    assert.deepEqual(messages([{ rule: 'self.name == "x"', message: 'named x' }], { replicas: 1 }), [
      'spec: Invalid value: "object": no such key: name evaluating rule: named x',
    ]);
    assert.deepEqual(messages([{ rule: 'self.replicas / self.minReplicas == 1' }], { replicas: 1, minReplicas: 0 }), [
      'spec: Invalid value: "object": division by zero evaluating rule: self.replicas / self.minReplicas == 1',
    ]);
    // int-or-string is dynamic: a string where the rule adds an int fails at run time.
    assert.deepEqual(messages([{ rule: 'self.size + 1 > 2' }], { size: '5' }), [
      'spec: Invalid value: "object": \'no such overload\': call arguments did not match a supported operator, function or macro signature for rule: self.size + 1 > 2',
    ]);
    // The other side of || decides: no error.
    assert.deepEqual(messages([{ rule: 'self.name == "x" || true' }], { replicas: 1 }), []);
  });

  it('refuses objects under a stored rule that does not compile, as kube does', () => {
    // A CRD written before rules were compiled at create can still hold one: kube reports it on
    // every object (validateExpressions: `rule compile error: ...`) rather than skip it.
    const [err] = messages([{ rule: 'self.replicas >= 1 ++' }], { replicas: 1 });
    assert.match(
      err!,
      /^spec: Invalid value: "object": rule compile error: compilation failed: ERROR: <input>:1:20: Syntax error: /,
    );
  });

  it('runs transition rules with oldSelf on updates only', () => {
    const rules = [{ rule: 'self.replicas >= oldSelf.replicas', message: 'replicas may not shrink' }];
    assert.deepEqual(messages(rules, { replicas: 1 }), []);
    assert.deepEqual(messages(rules, { replicas: 1 }, { replicas: 2 }), [
      'spec: Invalid value: "object": replicas may not shrink',
    ]);
    assert.deepEqual(messages(rules, { replicas: 3 }, { replicas: 2 }), []);
  });

  it('words the error with messageExpression, falling back to the message', () => {
    const rule = {
      rule: 'self.replicas <= 5',
      message: 'too many',
      messageExpression: "'replicas ' + string(self.replicas) + ' exceed 5'",
    };
    assert.deepEqual(messages([rule], { replicas: 7 }), ['spec: Invalid value: "object": replicas 7 exceed 5']);
    // A messageExpression that fails or yields an empty string leaves the message.
    assert.deepEqual(messages([{ ...rule, messageExpression: 'self.name' }], { replicas: 7 }), [
      'spec: Invalid value: "object": too many',
    ]);
    assert.deepEqual(messages([{ ...rule, messageExpression: "' '" }], { replicas: 7 }), [
      'spec: Invalid value: "object": too many',
    ]);
  });
});

describe('x-kubernetes-validations at CRD create', () => {
  const crdWith = (rules: JsonObject[]) =>
    widgetCrd(specSchema({ replicas: { type: 'integer' } }, { 'x-kubernetes-validations': rules }));
  // A CRD whose versions share one schema is validated as kube's internal form: spec.validation.
  const at = 'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0]';

  it('accepts rules that compile', () => {
    assert.deepEqual(validateCrd(crdWith([{ rule: 'self.replicas >= 1', messageExpression: "'bad'" }])), []);
  });

  it('refuses a rule with a syntax error, naming the rule and the position', () => {
    assert.deepEqual(lines(validateCrd(crdWith([{ rule: 'self.replicas >= 1 ++' }]))), [
      // Go's json.Marshal escapes `>`.
      `${at}.rule: Invalid value: {"Rule":"self.replicas \\u003e= 1 ++","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:20: Syntax error: found + but expecting end of input\n | self.replicas >= 1 ++\n | ...................^`,
    ]);
  });

  it('refuses undeclared references and unknown functions', () => {
    const [slef] = lines(validateCrd(crdWith([{ rule: 'slef.replicas >= 1' }])));
    assert.match(
      slef!,
      /\.rule: Invalid value: \{"Rule":"slef\.replicas \\u003e= 1",.*\}: compilation failed: ERROR: <input>:1:1: undeclared reference to 'slef' \(in container ''\)/,
    );
    const [fn] = lines(validateCrd(crdWith([{ rule: 'self.replicas.isQuantity()' }])));
    assert.match(
      fn!,
      /compilation failed: ERROR: <input>:1:\d+: undeclared reference to 'isQuantity' \(in container ''\)/,
    );
  });

  it('refuses a known function called with the wrong number of arguments', () => {
    const [arity] = lines(validateCrd(crdWith([{ rule: 'size(self.replicas, 1) == 1' }])));
    assert.match(
      arity!,
      /compilation failed: ERROR: <input>:1:\d+: found no matching overload for 'size' applied to 2 argument\(s\)/,
    );
  });

  it('refuses a messageExpression that does not compile', () => {
    const errs = lines(validateCrd(crdWith([{ rule: 'self.replicas >= 1', messageExpression: "'x' +" }])));
    assert.equal(errs.length, 1);
    assert.match(
      errs[0]!,
      new RegExp(
        `^${at.replace(/[[\].]/g, '\\$&')}\\.messageExpression: Invalid value: .*: messageExpression compilation failed: ERROR: <input>:1:`,
      ),
    );
  });
});
