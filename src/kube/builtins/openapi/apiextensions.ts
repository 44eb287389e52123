// apiextensions.k8s.io/v1 CustomResourceDefinition, its fields in the Go structs' order
// (staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1/types.go and
// types_jsonschema.go). Open objects: validation is the CRD validator's job, and fields that take
// more than one JSON type (items, additionalProperties, default, enum, ...) are left untyped.
import { META, bool, int32, list, mapOf, objectMetaRef, openObject, ref, str, strings, typeMeta } from './schema.ts';
import type { Schema } from './schema.ts';

const V1 = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1';
const any = (description: string): Schema => ({ description });

const names = (description: string): Schema =>
  openObject(description, {
    plural: str('Plural name of the resource to serve, lower case.'),
    singular: str('Singular name of the resource, lower case. Defaults to the lower-cased kind.'),
    shortNames: strings('Short names for the resource, exposed in discovery.'),
    kind: str('Serialized kind of the resource, CamelCase and singular.'),
    listKind: str('Serialized kind of the list of this resource. Defaults to <kind>List.'),
    categories: strings('Grouped resources this resource belongs to, such as all.'),
  });

const schemaProps = (): Schema => ref(`${V1}.JSONSchemaProps`, 'A structural schema node.');

export const apiextensionsModels: Record<string, Schema> = {
  [`${V1}.CustomResourceDefinition`]: openObject(
    'CustomResourceDefinition describes a custom resource: its group, names, scope and versions with their schemas.',
    {
      ...typeMeta('CustomResourceDefinition'),
      metadata: objectMetaRef(),
      spec: openObject('How the custom resources are served.', {
        group: str('API group of the resources.'),
        names: names('Resource and kind names of the custom resources.'),
        scope: str('Cluster or Namespaced.'),
        versions: list(
          openObject('One served version.', {
            name: str('Version name, such as v1.'),
            served: bool('Whether this version is served.'),
            storage: bool('Whether objects are stored in this version; exactly one version is.'),
            deprecated: bool('Whether this version is deprecated.'),
            deprecationWarning: str('Warning returned to clients of a deprecated version.'),
            schema: openObject('Schema of this version.', { openAPIV3Schema: schemaProps() }),
            subresources: openObject('Subresources served for this version.', {
              status: any('Enables the status subresource.'),
              scale: openObject('Enables the scale subresource.', {
                specReplicasPath: str('JSON path of the desired replicas.'),
                statusReplicasPath: str('JSON path of the observed replicas.'),
                labelSelectorPath: str('JSON path of the label selector in string form.'),
              }),
            }),
            additionalPrinterColumns: list(
              openObject('A column of kubectl get.', {
                name: str('Column name.'),
                type: str('OpenAPI type of the column.'),
                format: str('OpenAPI format of the column.'),
                description: str('Description of the column.'),
                priority: int32('0 for standard view, higher for wide view.'),
                jsonPath: str('JSON path of the value, evaluated against each object.'),
              }),
              'Extra columns of kubectl get.',
            ),
            selectableFields: list(openObject('A field usable in field selectors.'), 'Fields usable as selectors.'),
          }),
          'Served versions.',
        ),
        conversion: openObject('How objects are converted between versions.', {
          strategy: str('None or Webhook.'),
          webhook: any('The conversion webhook, for strategy Webhook.'),
        }),
        preserveUnknownFields: bool('Deprecated: keep fields not in the schema.'),
      }),
      status: openObject('Observed state of the definition.', {
        conditions: list(
          openObject('A condition of the definition.', {
            type: str(
              'Established, NamesAccepted, NonStructuralSchema, Terminating, KubernetesAPIApprovalPolicyConformant.',
            ),
            status: str('True, False or Unknown.'),
            lastTransitionTime: ref(`${META}.Time`, 'When the condition last changed status.'),
            reason: str('Machine-readable reason for the last transition.'),
            message: str('Human-readable details of the last transition.'),
          }),
          'Latest observations of the definition.',
        ),
        acceptedNames: names('Names actually served; they may differ from those in spec.'),
        storedVersions: strings('Versions objects were ever stored in.'),
      }),
    },
  ),
  [`${V1}.JSONSchemaProps`]: openObject('A JSON-Schema node of a structural schema.', {
    id: str('Schema id.'),
    $schema: str('JSON-Schema dialect.'),
    $ref: str('Reference to another schema.'),
    description: str('Description.'),
    type: str('JSON type.'),
    format: str('Format of the type.'),
    title: str('Title.'),
    default: any('Default value.'),
    maximum: any('Maximum value.'),
    exclusiveMaximum: any('Whether maximum is exclusive.'),
    minimum: any('Minimum value.'),
    exclusiveMinimum: any('Whether minimum is exclusive.'),
    maxLength: any('Maximum string length.'),
    minLength: any('Minimum string length.'),
    pattern: any('Regular expression strings must match.'),
    maxItems: any('Maximum list length.'),
    minItems: any('Minimum list length.'),
    uniqueItems: any('Whether list items must be unique.'),
    multipleOf: any('Numbers must be a multiple of this.'),
    enum: any('Allowed values.'),
    maxProperties: any('Maximum number of properties.'),
    minProperties: any('Minimum number of properties.'),
    required: any('Required properties.'),
    items: any('Schema of list items.'),
    allOf: any('All of these schemas.'),
    oneOf: any('Exactly one of these schemas.'),
    anyOf: any('Any of these schemas.'),
    not: any('Not this schema.'),
    properties: mapOf(schemaProps(), 'Schemas of the properties.'),
    additionalProperties: any('Schema of other properties, or whether they are allowed.'),
    patternProperties: any('Schemas of properties matching patterns.'),
    dependencies: any('Property dependencies.'),
    additionalItems: any('Schema of additional items.'),
    definitions: any('Named schemas.'),
    externalDocs: any('External documentation.'),
    example: any('Example value.'),
    nullable: any('Whether null is allowed.'),
    'x-kubernetes-preserve-unknown-fields': any('Keep fields not in the schema.'),
    'x-kubernetes-embedded-resource': any('The node is an embedded object with apiVersion, kind and metadata.'),
    'x-kubernetes-int-or-string': any('Either an integer or a string.'),
    'x-kubernetes-list-map-keys': any('Keys of a map list.'),
    'x-kubernetes-list-type': any('atomic, set or map.'),
    'x-kubernetes-map-type': any('atomic or granular.'),
    'x-kubernetes-validations': any('CEL validation rules.'),
  }),
};
