// The shape of our field tables. Each message is one line of `<number> <jsonName>:<type><flags>`
// entries, with field numbers carried over from the upstream generated.proto files:
//   s string · i int32/int64 · b bool · y bytes (base64 in JSON) · d double · f float
//   Name  a message table (or a special type from special.ts)
//   [T]   repeated     {T}  map<string, T> (entries {key = 1, value = 2})
// Flags: `!` keeps a zero scalar (Go pointer or non-omitempty field: gogo only writes pointers
// when set, and a non-omitempty field is always in Go's JSON); `~` inlines the message into its
// parent (Go `json:",inline"`, e.g. Volume.volumeSource).
// Tables list only the messages and fields we decode; the rest is reported as unknown.

export type Scalar = 's' | 'i' | 'b' | 'y' | 'd' | 'f';

export interface FieldSpec {
  name: string;
  /** A Scalar, or the name of a message table / special type. */
  type: string;
  repeated: boolean;
  map: boolean;
  keepZero: boolean;
  inline: boolean;
}

export type MessageSpec = Map<number, FieldSpec>;

const SCALARS = new Set(['s', 'i', 'b', 'y', 'd', 'f']);

export function isScalar(type: string): type is Scalar {
  return SCALARS.has(type);
}

const ENTRY = /^(\d+) ([A-Za-z]\w*):(\[\w+\]|\{\w+\}|\w+)([!~]*)$/;

export function parseMessage(name: string, line: string): MessageSpec {
  const spec: MessageSpec = new Map();
  for (const raw of line.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const m = ENTRY.exec(entry);
    if (!m) throw new Error(`protobuf table ${name}: bad entry ${JSON.stringify(entry)}`);
    const [, num, field, typeText, flags] = m;
    const repeated = typeText.startsWith('[');
    const map = typeText.startsWith('{');
    const n = Number(num);
    if (spec.has(n)) throw new Error(`protobuf table ${name}: field ${n} twice`);
    spec.set(n, {
      name: field,
      type: repeated || map ? typeText.slice(1, -1) : typeText,
      repeated,
      map,
      keepZero: flags.includes('!'),
      inline: flags.includes('~'),
    });
  }
  return spec;
}

/** Message name → table line, as the tables-*.ts files export them. */
export type TableSource = Record<string, string>;
