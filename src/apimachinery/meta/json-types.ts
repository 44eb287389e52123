// Plain JSON as objects travel on the wire. Every kind, custom ones included, is handled as
// untyped JSON somewhere (the server's registry, the client's cache), so these are the base types.

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | JsonObject;
/** Members may be `undefined`: optional fields of typed objects; JSON drops them. */
export interface JsonObject {
  [key: string]: JsonValue | undefined;
}
