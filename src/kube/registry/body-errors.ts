// The errors kube-apiserver gives for a request body it cannot decode, worded as its Go decoders
// word them: encoding/json's syntax errors, go-yaml's `yaml: line N: ...`, and the create/update
// handlers' "the object provided is unrecognized" wrapping (handlers/rest.go transformDecodeError).
// The JavaScript parsers' own messages never reach a client.
import { badRequest, type StatusError } from '../../apimachinery/errors/index.ts';
import { goJsonSyntaxError } from '../../apimachinery/json/index.ts';

/** A body that is not JSON (or YAML) at all; the message is the Go decoder's. */
export class UndecodableBody extends Error {}

/** encoding/json's message for text JSON.parse refused. */
export function jsonSyntaxMessage(text: string): string {
  return goJsonSyntaxError(text) ?? 'unexpected end of JSON input';
}

/**
 * What the JSON serializer says when it cannot even find apiVersion/kind
 * (runtime/serializer/json/meta.go SimpleMetaFactory.Interpret).
 */
export function versionKindParseMessage(text: string): string {
  return `couldn't get version/kind; json parse error: ${jsonSyntaxMessage(text)}`;
}

interface YamlErrorLike {
  code?: unknown;
  message?: unknown;
  linePos?: Array<{ line: number }>;
}

/** go-yaml's wording for the yaml package's error codes (the nearest go-yaml scanner/parser message). */
function goYamlProblem(code: string, message: string): string {
  switch (code) {
    case 'BLOCK_AS_IMPLICIT_KEY':
      return 'mapping values are not allowed in this context';
    case 'TAB_AS_INDENT':
    case 'BAD_SCALAR_START':
      return 'found character that cannot start any token';
    case 'MISSING_CHAR':
      if (message.startsWith('Flow sequence')) return "did not find expected ',' or ']'";
      if (message.startsWith('Flow map')) return "did not find expected ',' or '}'";
      return 'found unexpected end of stream';
    case 'BAD_INDENT':
    case 'UNEXPECTED_TOKEN':
      return 'did not find expected key';
    case 'DUPLICATE_KEY':
      return 'mapping key already defined';
    default:
      return 'did not find expected node content';
  }
}

/** go-yaml's `yaml: line N: problem` for an error thrown by the yaml package. */
export function yamlSyntaxMessage(e: unknown): string {
  const err = (typeof e === 'object' && e !== null ? e : {}) as YamlErrorLike;
  const message = typeof err.message === 'string' ? err.message : '';
  const alias = /^Unresolved alias[^:]*: (.*)$/.exec(message);
  if (alias) return `yaml: unknown anchor '${alias[1]}' referenced`;
  const problem = goYamlProblem(typeof err.code === 'string' ? err.code : '', message);
  const line = err.linePos?.[0]?.line;
  return line === undefined ? `yaml: ${problem}` : `yaml: line ${line}: ${problem}`;
}

/** handlers/rest.go summarizeData: the body's first bytes, as text when it looks like JSON, else hex. */
export function summarizeData(data: Uint8Array, maxLength = 30): string {
  if (data.length === 0) return '<empty>';
  const head = Buffer.from(data.subarray(0, maxLength));
  const shown = data[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return data.length > maxLength ? `${shown} ...` : shown;
}

/** transformDecodeError for a body without a recognizable apiVersion/kind. */
export function unrecognizedObject(kind: string, decodeError: string, body: Uint8Array): StatusError {
  return badRequest(
    `the object provided is unrecognized (must be of type ${kind}): ${decodeError} (${summarizeData(body)})`,
  );
}
