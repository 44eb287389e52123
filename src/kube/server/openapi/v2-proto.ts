// Encodes the Swagger 2.0 document as the gnostic protobuf kubectl asks /openapi/v2 for.
//
// The messages below are the subset of google/gnostic openapiv2/OpenAPIv2.proto this server
// fills in; field numbers are gnostic's, so the bytes decode with the full schema. Vendor
// extensions travel as YAML text (NamedAny.value.yaml), as gnostic encodes them.
import protobuf from 'protobufjs';
import { stringify } from 'yaml';
import type { JsonObject, JsonValue } from '../../../apimachinery/meta/index.ts';
import { asSchema } from '../../builtins/openapi/schema.ts';

const PROTO = `
syntax = "proto3";
package openapi.v2;

message Document {
  string swagger = 1;
  Info info = 2;
  Paths paths = 8;
  Definitions definitions = 9;
}
message Info { string title = 1; string version = 2; string description = 3; }
message Paths { repeated NamedPathItem path = 2; }
message NamedPathItem { string name = 1; PathItem value = 2; }
message PathItem {
  Operation get = 2;
  Operation put = 3;
  Operation post = 4;
  Operation delete = 5;
  Operation patch = 8;
  repeated ParametersItem parameters = 9;
}
message Operation {
  string description = 3;
  string operation_id = 5;
  repeated string produces = 6;
  repeated string consumes = 7;
  repeated ParametersItem parameters = 8;
  Responses responses = 9;
  repeated string schemes = 10;
  repeated NamedAny vendor_extension = 13;
}
message ParametersItem { oneof oneof { Parameter parameter = 1; } }
message Parameter { oneof oneof { BodyParameter body_parameter = 1; NonBodyParameter non_body_parameter = 2; } }
message BodyParameter { string description = 1; string name = 2; string in = 3; bool required = 4; Schema schema = 5; }
message NonBodyParameter {
  oneof oneof {
    QueryParameterSubSchema query_parameter_sub_schema = 3;
    PathParameterSubSchema path_parameter_sub_schema = 4;
  }
}
message QueryParameterSubSchema { bool required = 1; string in = 2; string description = 3; string name = 4; string type = 6; bool unique_items = 20; }
message PathParameterSubSchema { bool required = 1; string in = 2; string description = 3; string name = 4; string type = 5; bool unique_items = 19; }
message Responses { repeated NamedResponseValue response_code = 1; }
message NamedResponseValue { string name = 1; ResponseValue value = 2; }
message ResponseValue { oneof oneof { Response response = 1; } }
message Response { string description = 1; SchemaItem schema = 2; }
message SchemaItem { oneof oneof { Schema schema = 1; } }
message Definitions { repeated NamedSchema additional_properties = 1; }
message NamedSchema { string name = 1; Schema value = 2; }
message Schema {
  string _ref = 1;
  string format = 2;
  string description = 4;
  repeated string required = 19;
  AdditionalPropertiesItem additional_properties = 21;
  TypeItem type = 22;
  ItemsItem items = 23;
  Properties properties = 25;
  repeated NamedAny vendor_extension = 31;
}
message AdditionalPropertiesItem { oneof oneof { Schema schema = 1; bool boolean = 2; } }
message TypeItem { repeated string value = 1; }
message ItemsItem { repeated Schema schema = 1; }
message Properties { repeated NamedSchema additional_properties = 1; }
message NamedAny { string name = 1; Any value = 2; }
message Any { string yaml = 2; }
`;

const root = protobuf.parse(PROTO, { keepCase: true }).root;
const DocumentType = root.lookupType('openapi.v2.Document');

type Msg = { [k: string]: unknown };

export function encodeSwaggerProto(doc: JsonObject): Uint8Array {
  const message: Msg = {
    swagger: doc.swagger,
    info: doc.info,
    paths: {
      path: Object.entries(asSchema(doc.paths) ?? {}).map(([name, item]) => ({
        name,
        value: pathItem(asSchema(item) ?? {}),
      })),
    },
    definitions: { additional_properties: namedSchemas(asSchema(doc.definitions) ?? {}) },
  };
  return DocumentType.encode(DocumentType.fromObject(message)).finish();
}

// The same few extension values recur thousands of times; YAML rendering dominates otherwise.
const yamlCache = new Map<string, string>();

function toYaml(v: JsonValue | undefined): string {
  const key = JSON.stringify(v);
  let out = yamlCache.get(key);
  if (out === undefined) {
    out = stringify(v);
    if (yamlCache.size < 10_000) yamlCache.set(key, out);
  }
  return out;
}

function extensions(o: JsonObject): Msg[] {
  return Object.entries(o)
    .filter(([k]) => k.startsWith('x-'))
    .map(([name, v]) => ({ name, value: { yaml: toYaml(v) } }));
}

function pathItem(item: JsonObject): Msg {
  const out: Msg = { parameters: parameters(item.parameters) };
  for (const m of ['get', 'put', 'post', 'delete', 'patch']) {
    const op = asSchema(item[m]);
    if (op) out[m] = operation(op);
  }
  return out;
}

function strings(v: JsonValue | undefined): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function operation(op: JsonObject): Msg {
  const responses = Object.entries(asSchema(op.responses) ?? {}).map(([name, r]) => {
    const resp = asSchema(r) ?? {};
    const schema = asSchema(resp.schema);
    return {
      name,
      value: {
        response: { description: resp.description, ...(schema ? { schema: { schema: schemaMsg(schema) } } : {}) },
      },
    };
  });
  return {
    description: op.description,
    operation_id: op.operationId,
    produces: strings(op.produces),
    consumes: strings(op.consumes),
    schemes: strings(op.schemes),
    parameters: parameters(op.parameters),
    responses: { response_code: responses },
    vendor_extension: extensions(op),
  };
}

function parameters(v: JsonValue | undefined): Msg[] {
  return (Array.isArray(v) ? v : []).map((x) => {
    const p = asSchema(x) ?? {};
    if (p.in === 'body') {
      return {
        parameter: {
          body_parameter: {
            name: p.name,
            in: p.in,
            required: p.required === true,
            schema: schemaMsg(asSchema(p.schema) ?? {}),
          },
        },
      };
    }
    const sub = {
      required: p.required === true,
      in: p.in,
      description: p.description,
      name: p.name,
      type: p.type,
      unique_items: p.uniqueItems === true,
    };
    const key = p.in === 'path' ? 'path_parameter_sub_schema' : 'query_parameter_sub_schema';
    return { parameter: { non_body_parameter: { [key]: sub } } };
  });
}

function namedSchemas(o: JsonObject): Msg[] {
  return Object.entries(o).map(([name, s]) => ({ name, value: schemaMsg(asSchema(s) ?? {}) }));
}

function schemaMsg(s: JsonObject): Msg {
  const out: Msg = {};
  if (typeof s.$ref === 'string') out._ref = s.$ref;
  if (typeof s.format === 'string') out.format = s.format;
  if (typeof s.description === 'string') out.description = s.description;
  const required = strings(s.required);
  if (required.length > 0) out.required = required;
  if (typeof s.type === 'string') out.type = { value: [s.type] };
  const items = asSchema(s.items);
  if (items) out.items = { schema: [schemaMsg(items)] };
  const props = asSchema(s.properties);
  // Present even when empty: kubectl's parser tells closed objects from maps by its presence.
  if (props) out.properties = { additional_properties: namedSchemas(props) };
  const ap = s.additionalProperties;
  if (typeof ap === 'boolean') out.additional_properties = { boolean: ap };
  else if (asSchema(ap)) out.additional_properties = { schema: schemaMsg(asSchema(ap)!) };
  const ext = extensions(s);
  if (ext.length > 0) out.vendor_extension = ext;
  return out;
}

/** Decodes what `encodeSwaggerProto` produced (field names as in gnostic's proto), for tests and debugging. */
export function decodeSwaggerProto(bytes: Uint8Array): Record<string, unknown> {
  return DocumentType.toObject(DocumentType.decode(bytes), { defaults: false, arrays: true });
}
