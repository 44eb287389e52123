import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateCrd } from '../../../../src/kube/crd/index.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';
import { lines, specSchema, versions, widgetCrd } from '../fixtures.ts';

const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

/** An internal CustomResourceDefinitionVersion as kube prints it (Go field names, schema moved to the top). */
function version(name: string, storage: boolean): string {
  return `{"Name":"${name}","Served":true,"Storage":${storage},"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}`;
}

test('a valid CRD has no errors', () => {
  assert.deepEqual(validateCrd(widgetCrd()), []);
});

test('the name must be <plural>.<group>', () => {
  const crd = widgetCrd();
  (crd.metadata as JsonObject).name = 'widget.example.com';
  assert.deepEqual(validateCrd(crd), [
    {
      field: 'metadata.name',
      reason: 'FieldValueInvalid',
      message: 'Invalid value: "widget.example.com": must be spec.names.plural+"."+spec.group',
    },
  ]);
});

test('the group needs a dot; the scope is Namespaced or Cluster; plural is a DNS-1035 label', () => {
  const crd = widgetCrd();
  const spec = crd.spec as JsonObject;
  spec.group = 'example';
  spec.scope = 'Global';
  (spec.names as JsonObject).plural = 'Widgets';
  (crd.metadata as JsonObject).name = 'Widgets.example';
  assert.deepEqual(lines(validateCrd(crd)).slice(1), [
    'spec.group: Invalid value: "example": should be a domain with at least one dot',
    'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"',
    `spec.names.plural: Invalid value: "Widgets": ${DNS1035}`,
  ]);
});

test('kind may have mixed case but not spaces; kind and listKind must differ; shortNames and categories are labels', () => {
  const crd = widgetCrd();
  const names = (crd.spec as JsonObject).names as JsonObject;
  names.kind = 'My Widget';
  names.listKind = 'My Widget';
  names.shortNames = ['wd', 'W'];
  names.categories = ['all', 'x_y'];
  assert.deepEqual(lines(validateCrd(crd)), [
    `spec.names.kind: Invalid value: "My Widget": may have mixed case, but should otherwise match: ${DNS1035}`,
    `spec.names.listKind: Invalid value: "My Widget": may have mixed case, but should otherwise match: ${DNS1035}`,
    `spec.names.shortNames[1]: Invalid value: "W": ${DNS1035}`,
    'spec.names.listKind: Invalid value: "My Widget": kind and listKind may not be the same',
    `spec.names.categories[1]: Invalid value: "x_y": ${DNS1035}`,
  ]);
});

test('exactly one storage version; names unique', () => {
  const crd = widgetCrd();
  versions(crd).push({ ...versions(crd)[0] });
  assert.deepEqual(lines(validateCrd(crd)), [
    `spec.versions: Invalid value: [${version('v1', true)},${version('v1', true)}]: must contain unique version names`,
    `spec.versions: Invalid value: [${version('v1', true)},${version('v1', true)}]: must have exactly one version marked as storage version`,
    // kube matches stored versions against a map it deletes from, so the duplicate is "missing".
    'status.storedVersions: Invalid value: ["v1"]: must have the storage version v1',
  ]);
});

test('two storage versions: the second is also missing from the stored versions kube records', () => {
  const crd = widgetCrd();
  versions(crd).push({ ...versions(crd)[0], name: 'v2' });
  assert.deepEqual(lines(validateCrd(crd)), [
    `spec.versions: Invalid value: [${version('v1', true)},${version('v2', true)}]: must have exactly one version marked as storage version`,
    'status.storedVersions: Invalid value: ["v1"]: must have the storage version v2',
  ]);
});

test('no storage version at all', () => {
  const crd = widgetCrd();
  versions(crd)[0].storage = false;
  assert.deepEqual(lines(validateCrd(crd)), [
    'spec.versions: Invalid value: [{"Name":"v1","Served":true,"Storage":false,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}]: must have exactly one version marked as storage version',
    'status.storedVersions: Invalid value: null: must have at least one stored version',
  ]);
});

test('version names are DNS-1035 labels (and kube checks the first one twice)', () => {
  const crd = widgetCrd();
  versions(crd)[0].name = 'V1';
  assert.deepEqual(lines(validateCrd(crd)).slice(0, 2), [
    `spec.versions[0].name: Invalid value: "V1": ${DNS1035}`,
    `spec.version: Invalid value: "V1": ${DNS1035}`,
  ]);
});

test('a schema is required for every version', () => {
  const crd = widgetCrd();
  delete versions(crd)[0].schema;
  assert.deepEqual(validateCrd(crd), [
    { field: 'spec.versions[0].schema.openAPIV3Schema', reason: 'FieldValueRequired', message: 'Required value' },
  ]);
});

test('a one-version (or identical) schema is reported under spec.validation, as kube does', () => {
  const crd = widgetCrd(specSchema({ size: { description: 'no type' } }));
  assert.deepEqual(validateCrd(crd), [
    {
      field: 'spec.validation.openAPIV3Schema.properties[spec].properties[size].type',
      reason: 'FieldValueRequired',
      message: 'Required value: must not be empty for specified object fields',
    },
  ]);
});

test('differing per-version schemas are reported under spec.versions[i].schema', () => {
  const crd = widgetCrd();
  versions(crd).push({
    name: 'v2',
    served: true,
    storage: false,
    schema: { openAPIV3Schema: { properties: { spec: { type: 'object' } } } },
  });
  assert.deepEqual(lines(validateCrd(crd)), [
    'spec.versions[1].schema.openAPIV3Schema.type: Required value: must not be empty at the root',
  ]);
});

test('non-structural schemas: metadata beyond name, nested types, properties with additionalProperties', () => {
  const crd = widgetCrd({
    type: 'object',
    properties: {
      metadata: { type: 'object', properties: { labels: { type: 'object' } } },
      spec: {
        type: 'object',
        properties: { a: { type: 'string' } },
        additionalProperties: { type: 'string' },
        anyOf: [{ type: 'object' }, { properties: { b: { type: 'string' } } }],
      },
      list: { type: 'array' },
    },
  });
  assert.deepEqual(lines(validateCrd(crd)), [
    'spec.validation.openAPIV3Schema.properties[list].items: Required value: must be specified',
    'spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified',
    'spec.validation.openAPIV3Schema.properties[spec].anyOf[0].type: Forbidden: must be empty to be structural',
    'spec.validation.openAPIV3Schema.properties[spec].anyOf[1].properties[b].type: Forbidden: must be empty to be structural',
    'spec.validation.openAPIV3Schema.properties[spec].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive',
  ]);
});

test('int-or-string and preserve-unknown-fields nodes need no type; metadata.name may be restricted', () => {
  const crd = widgetCrd({
    type: 'object',
    properties: {
      metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 20 } } },
      spec: {
        type: 'object',
        properties: {
          port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
          raw: { 'x-kubernetes-preserve-unknown-fields': true },
          template: {
            type: 'object',
            'x-kubernetes-embedded-resource': true,
            'x-kubernetes-preserve-unknown-fields': true,
          },
        },
      },
    },
  });
  assert.deepEqual(validateCrd(crd), []);
});

test('defaults must validate and be pruned; none in top-level metadata', () => {
  const crd = widgetCrd({
    type: 'object',
    properties: {
      metadata: { type: 'object', default: { name: 'x' } },
      spec: {
        type: 'object',
        properties: {
          size: { type: 'integer', default: 'big' },
          opts: { type: 'object', properties: { a: { type: 'string' } }, default: { a: 'x', b: 'y' } },
        },
      },
    },
  });
  assert.deepEqual(lines(validateCrd(crd)), [
    'spec.validation.openAPIV3Schema.properties[spec].properties[size].default: Invalid value: "string":  in body must be of type integer: "string"',
    'spec.validation.openAPIV3Schema.properties[spec].properties[opts].default: Invalid value: {"a":"x","b":"y"}: must not have unknown fields',
    'spec.validation.openAPIV3Schema.properties[metadata].default: Forbidden: must not be set in top-level metadata',
  ]);
});

test('list-type map needs object items with scalar, required-or-defaulted keys', () => {
  const crd = widgetCrd(
    specSchema({
      ports: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name', 'proto'],
        items: { type: 'object', properties: { name: { type: 'object' } } },
      },
      tags: { type: 'string', 'x-kubernetes-list-type': 'set' },
    }),
  );
  assert.deepEqual(lines(validateCrd(crd)), [
    'spec.validation.openAPIV3Schema.properties[spec].properties[ports].items.properties[name].type: Invalid value: "object": must be a scalar type if parent array\'s x-kubernetes-list-type is map',
    'spec.validation.openAPIV3Schema.properties[spec].properties[ports].x-kubernetes-list-map-keys: Invalid value: ["name","proto"]: entries must all be names of item properties',
    'spec.validation.openAPIV3Schema.properties[spec].properties[ports].items.properties[name].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
    'spec.validation.openAPIV3Schema.properties[spec].properties[tags].type: Invalid value: "string": must be array if x-kubernetes-list-type is specified',
  ]);
});

test('with the status subresource the root may only hold some fields', () => {
  const crd = widgetCrd({ type: 'object', nullable: true, properties: {} }, { subresources: { status: {} } });
  assert.deepEqual(lines(validateCrd(crd)), [
    'spec.validation.openAPIV3Schema: Invalid value: {"ID":"","Schema":"","Ref":null,"Description":"","Type":"object","Nullable":true,"Format":"","Title":"","Default":null,"Maximum":null,"ExclusiveMaximum":false,"Minimum":null,"ExclusiveMinimum":false,"MaxLength":null,"MinLength":null,"Pattern":"","MaxItems":null,"MinItems":null,"UniqueItems":false,"MultipleOf":null,"Enum":null,"MaxProperties":null,"MinProperties":null,"Required":null,"Items":null,"AllOf":null,"OneOf":null,"AnyOf":null,"Not":null,"Properties":{},"AdditionalProperties":null,"PatternProperties":null,"Dependencies":null,"AdditionalItems":null,"Definitions":null,"ExternalDocs":null,"Example":null,"XPreserveUnknownFields":null,"XEmbeddedResource":false,"XIntOrString":false,"XListMapKeys":null,"XListType":null,"XMapType":null,"XValidations":null}: only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled',
    'spec.validation.openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root',
  ]);
});

test('an invalid pattern is reported with Go regexp wording', () => {
  const crd = widgetCrd(specSchema({ a: { type: 'string', pattern: '(abc' } }));
  assert.deepEqual(lines(validateCrd(crd)), [
    'spec.validation.openAPIV3Schema.properties[spec].properties[a].pattern: Invalid value: "(abc": must be a valid regular expression, but isn\'t: error parsing regexp: missing closing ): `(abc`',
  ]);
});

test('printer columns: name, type, format, JSONPath (reported under its internal name)', () => {
  const crd = widgetCrd(undefined, {
    additionalPrinterColumns: [
      { name: '', type: 'text', format: 'x', jsonPath: 'spec.size' },
      { name: 'Size', jsonPath: '.spec.size' },
      { name: 'Ok', type: 'integer' },
    ],
  });
  assert.deepEqual(lines(validateCrd(crd)), [
    'spec.additionalPrinterColumns[0].name: Required value',
    'spec.additionalPrinterColumns[0].type: Invalid value: "text": must be one of boolean,date,integer,number,string',
    'spec.additionalPrinterColumns[0].format: Invalid value: "x": must be one of byte,date,date-time,double,float,int32,int64,password',
    'spec.additionalPrinterColumns[0].JSONPath: Invalid value: "spec.size": must be a simple json path starting with .',
    'spec.additionalPrinterColumns[1].type: Required value: must be one of boolean,date,integer,number,string',
    'spec.additionalPrinterColumns[2].JSONPath: Required value',
  ]);
});

test('scale subresource paths', () => {
  const crd = widgetCrd(undefined, {
    subresources: {
      scale: { specReplicasPath: 'spec.replicas', statusReplicasPath: '.spec.x', labelSelectorPath: '.metadata.x' },
    },
  });
  assert.deepEqual(lines(validateCrd(crd)), [
    'spec.subresources.scale.specReplicasPath: Invalid value: "spec.replicas": must be a simple json path starting with .',
    'spec.subresources.scale.statusReplicasPath: Invalid value: ".spec.x": should be a json path under .status',
    'spec.subresources.scale.labelSelectorPath: Invalid value: ".metadata.x": should be a json path under either .spec or .status',
  ]);
});

test('protected groups need the api-approved annotation', () => {
  const crd = widgetCrd();
  (crd.spec as JsonObject).group = 'widgets.k8s.io';
  (crd.metadata as JsonObject).name = 'widgets.widgets.k8s.io';
  assert.deepEqual(lines(validateCrd(crd)), [
    'metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
  ]);
  (crd.metadata as JsonObject).annotations = {
    'api-approved.kubernetes.io': 'https://github.com/kubernetes/kubernetes/pull/1',
  };
  assert.deepEqual(validateCrd(crd), []);
});

test('update: group and plural are immutable, kind and scope once established; stored versions must stay', () => {
  const old = widgetCrd();
  old.status = { storedVersions: ['v0', 'v1'], conditions: [{ type: 'Established', status: 'True' }] };
  const crd = widgetCrd();
  const spec = crd.spec as JsonObject;
  spec.group = 'example.org';
  spec.scope = 'Cluster';
  (spec.names as JsonObject).kind = 'Gadget';
  assert.deepEqual(lines(validateCrd(crd, old)), [
    'spec.scope: Invalid value: "Cluster": field is immutable',
    'spec.names.kind: Invalid value: "Gadget": field is immutable',
    'spec.group: Invalid value: "example.org": field is immutable',
    'status.storedVersions[0]: Invalid value: "v0": missing from spec.versions; v0 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v0 and removes v0 from status.storedVersions',
  ]);
});

test('conversion webhook needs a client config and review versions', () => {
  const crd = widgetCrd();
  (crd.spec as JsonObject).conversion = { strategy: 'Webhook' };
  assert.deepEqual(lines(validateCrd(crd)), [
    'spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook',
    'spec.conversion.conversionReviewVersions: Required value',
  ]);
});

test('a conversion webhook is checked as admission webhooks are: https URL, a well-formed service', () => {
  // validateCustomResourceConversion calls webhook.ValidateWebhookURL / ValidateWebhookService
  // (staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go).
  const crd = widgetCrd();
  const spec = crd.spec as JsonObject;
  spec.conversion = {
    strategy: 'Webhook',
    webhook: { clientConfig: { url: 'http://127.0.0.1/convert' }, conversionReviewVersions: ['v1'] },
  };
  assert.deepEqual(lines(validateCrd(crd)), [
    `spec.conversion.webhookClientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
  ]);
  spec.conversion = {
    strategy: 'Webhook',
    webhook: {
      clientConfig: { service: { namespace: 'ns', name: 'svc', path: 'convert', port: 443 } },
      conversionReviewVersions: ['v1'],
    },
  };
  assert.deepEqual(lines(validateCrd(crd)), [
    `spec.conversion.webhookClientConfig.service.path: Invalid value: "convert": must start with a '/'`,
  ]);
});
