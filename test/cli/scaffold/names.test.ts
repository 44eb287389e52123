// Names kubebuilder accepts and refuses (kubebuilder pkg/model/resource validation: DNS-1123 group
// and domain, version `v<N>[alpha|beta<N>]`, an UpperCamelCase kind), and the plurals it forms.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ScaffoldError } from '../../../src/cli/scaffold/errors.ts';
import {
  checkDomain,
  checkGroup,
  checkKind,
  checkRepo,
  checkVersion,
  objectNameOf,
  pluralOf,
} from '../../../src/cli/scaffold/names.ts';

describe('scaffold names', () => {
  it('accepts what kubebuilder accepts', () => {
    assert.equal(checkDomain('example.com'), 'example.com');
    assert.equal(checkGroup('alnair'), 'alnair');
    for (const v of ['v1', 'v1alpha1', 'v2beta3']) assert.equal(checkVersion(v), v);
    assert.equal(checkKind('AlnairPod'), 'AlnairPod');
    assert.equal(checkRepo('@acme/my-operator'), '@acme/my-operator');
  });

  it('refuses bad names with the flag and an example in the message', () => {
    assert.throws(
      () => checkDomain('Example.com'),
      (e: Error) => e instanceof ScaffoldError && /--domain "Example.com"/.test(e.message),
    );
    assert.throws(() => checkGroup('Alnair'), /invalid --group "Alnair"/);
    assert.throws(() => checkGroup('al_nair'), /invalid --group/);
    for (const v of ['1', 'v1.0', 'V1', 'v1gamma1', 'alpha']) assert.throws(() => checkVersion(v), /invalid --version/);
    for (const k of ['alnairPod', 'Alnair-Pod', 'Alnair Pod', '']) assert.throws(() => checkKind(k), /invalid --kind/);
    assert.throws(() => checkRepo('My Operator'), /invalid --repo/);
  });

  it('forms plurals as kubebuilder does for the common endings', () => {
    assert.equal(pluralOf('AlnairPod'), 'alnairpods');
    assert.equal(pluralOf('Policy'), 'policies');
    assert.equal(pluralOf('Gateway'), 'gateways');
    assert.equal(pluralOf('Ingress'), 'ingresses');
    assert.equal(pluralOf('Box'), 'boxes');
  });

  it('derives Kubernetes names from the package name', () => {
    assert.equal(objectNameOf('@acme/My_Operator'), 'my-operator');
  });
});
