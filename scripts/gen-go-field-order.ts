// Writes src/kube/builtins/field-order/go-structs.ts: the JSON field order of the Go structs behind
// every built-in kind the server serves, read from the types.go files of fetched Kubernetes
// repositories. encoding/json writes a struct's fields in declaration order (fields of an embedded
// struct at its place), so that order is what kube-apiserver's responses have.
//
//   node --import tsx scripts/gen-go-field-order.ts \
//     --api DIR --apimachinery DIR --apiextensions DIR --aggregator DIR
//
// Each DIR is a checkout or a bare git directory (read at HEAD) of kubernetes/api,
// kubernetes/apimachinery, kubernetes/apiextensions-apiserver and kubernetes/kube-aggregator.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as prettier from 'prettier';
import { builtinResourceDefs } from '../src/kube/registry/builtins.ts';
import { goStructKey } from '../src/kube/builtins/field-order/field-order.ts';

const OUT = 'src/kube/builtins/field-order/go-structs.ts';

interface Source {
  repo: string;
  dir: string;
  commit: string;
  read(path: string): string;
  list(path: string): string[];
}

function openSource(repo: string, dir: string): Source {
  const bare = !existsSync(join(dir, '.git')) && existsSync(join(dir, 'HEAD'));
  const git = (...args: string[]): string =>
    execFileSync('git', bare ? ['--git-dir', dir, ...args] : ['-C', dir, ...args], {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    });
  return {
    repo,
    dir,
    commit: git('rev-parse', 'HEAD').trim(),
    read: (path) => (bare ? git('show', `HEAD:${path}`) : readFileSync(join(dir, path), 'utf8')),
    list: (path) =>
      bare ? git('ls-tree', '--name-only', `HEAD:${path}`).split('\n').filter(Boolean) : readdirSync(join(dir, path)),
  };
}

/** A Go type as far as JSON cares: a named type, or a list or map of one. */
type GoType = { named: string } | { list: GoType } | { map: GoType } | { leaf: true };

interface GoField {
  goName: string;
  json: string; // '' when embedded and inlined
  type: GoType;
}

interface Pkg {
  key: string;
  structs: Map<string, GoField[]>;
  named: Map<string, GoType>; // non-struct named types: `type ResourceList map[...]...`
  marshalers: Set<string>; // types with their own MarshalJSON: written as they choose
}

/** Import path → the package key used in the table, for the packages that are parsed. */
function packageKey(importPath: string): string | undefined {
  let m = /^k8s\.io\/api\/([a-z0-9]+)\/(v[a-z0-9]+)$/.exec(importPath);
  if (m) return `${m[1]}/${m[2]}`;
  if (importPath === 'k8s.io/apimachinery/pkg/apis/meta/v1') return 'meta/v1';
  m = /^k8s\.io\/apiextensions-apiserver\/pkg\/apis\/apiextensions\/(v[a-z0-9]+)$/.exec(importPath);
  if (m) return `apiextensions/${m[1]}`;
  m = /^k8s\.io\/kube-aggregator\/pkg\/apis\/apiregistration\/(v[a-z0-9]+)$/.exec(importPath);
  if (m) return `apiregistration/${m[1]}`;
  return undefined;
}

function packageLocation(key: string): { repo: string; path: string } {
  const [group, version] = key.split('/');
  if (key === 'meta/v1') return { repo: 'apimachinery', path: 'pkg/apis/meta/v1' };
  if (group === 'apiextensions') return { repo: 'apiextensions', path: `pkg/apis/apiextensions/${version}` };
  if (group === 'apiregistration') return { repo: 'aggregator', path: `pkg/apis/apiregistration/${version}` };
  return { repo: 'api', path: key };
}

// The apiextensions "OrBool/OrArray/OrStringArray" unions marshal the schema they hold as the
// schema itself (marshal.go), so their object form is ordered as JSONSchemaProps.
const SCHEMA_UNIONS = new Set(['JSONSchemaPropsOrBool', 'JSONSchemaPropsOrArray', 'JSONSchemaPropsOrStringArray']);

// Kinds of subresource bodies: serviceaccounts/token, <kind>/scale, pods/binding, pods/eviction.
const SUBRESOURCE_KINDS = [
  'authentication/v1.TokenRequest',
  'autoscaling/v1.Scale',
  'core/v1.Binding',
  'policy/v1.Eviction',
];

function stripComments(src: string): string {
  return src
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '')
    .replace(/[ \t]\/\/ .*$/gm, '');
}

function parseImports(src: string): Map<string, string> {
  const imports = new Map<string, string>();
  const add = (alias: string | undefined, path: string): void => {
    imports.set(alias ?? path.split('/').pop()!, path);
  };
  for (const block of src.matchAll(/^import \(([\s\S]*?)^\)/gm)) {
    for (const m of block[1].matchAll(/^\s*([A-Za-z_][\w]*)?\s*"([^"]+)"/gm)) add(m[1], m[2]);
  }
  for (const m of src.matchAll(/^import ([A-Za-z_][\w]*)?\s*"([^"]+)"/gm)) add(m[1], m[2]);
  return imports;
}

function parseType(text: string, ownKey: string, imports: Map<string, string>): GoType {
  let t = text.trim();
  while (t.startsWith('*')) t = t.slice(1);
  if (t === '[]byte') return { leaf: true };
  if (t.startsWith('[]')) return { list: parseType(t.slice(2), ownKey, imports) };
  if (t.startsWith('map[')) {
    let depth = 0;
    let i = 3;
    for (; i < t.length; i++) {
      if (t[i] === '[') depth++;
      else if (t[i] === ']' && --depth === 0) break;
    }
    return { map: parseType(t.slice(i + 1), ownKey, imports) };
  }
  const dot = t.indexOf('.');
  if (dot > 0) {
    const key = packageKey(imports.get(t.slice(0, dot)) ?? '');
    return key ? { named: `${key}.${t.slice(dot + 1)}` } : { leaf: true };
  }
  if (/^[A-Z]\w*$/.test(t)) return { named: `${ownKey}.${t}` };
  return { leaf: true }; // string, int32, bool, interface{}, ...
}

function parseStructBody(body: string, ownKey: string, imports: Map<string, string>): GoField[] {
  const fields: GoField[] = [];
  for (const raw of body.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    const tagMatch = /`([^`]*)`/.exec(line);
    const tag = tagMatch?.[1] ?? '';
    const decl = (tagMatch ? line.slice(0, tagMatch.index) : line).trim();
    const json = /(?:^|\s)json:"([^"]*)"/.exec(tag)?.[1];
    const jsonName = json?.split(',')[0];
    if (jsonName === '-') continue;
    const parts = decl.split(/\s+/);
    const embedded = parts.length === 1;
    const typeText = embedded ? parts[0] : decl.slice(parts[0].length);
    const goName = embedded ? parts[0].replace(/^\*/, '').split('.').pop()! : parts[0].replace(/,$/, '');
    if (!/^[A-Z]/.test(goName)) continue; // unexported: never encoded
    const type = parseType(typeText, ownKey, imports);
    if (embedded && !jsonName) fields.push({ goName, json: '', type });
    else fields.push({ goName, json: jsonName || goName, type });
  }
  return fields;
}

function parsePackage(key: string, sources: Record<string, Source>): Pkg {
  const { repo, path } = packageLocation(key);
  const source = sources[repo];
  const pkg: Pkg = { key, structs: new Map(), named: new Map(), marshalers: new Set() };
  const files = source
    .list(path)
    .filter((f) => f.endsWith('.go'))
    .filter((f) => !/(_test|_fuzz)\.go$|^zz_generated|^generated\.pb\.go$|swagger_doc_generated/.test(f));
  for (const file of files) {
    const src = stripComments(source.read(`${path}/${file}`));
    const imports = parseImports(src);
    for (const m of src.matchAll(/^type (\w+) struct \{\n([\s\S]*?)^\}/gm)) {
      pkg.structs.set(m[1], parseStructBody(m[2], key, imports));
    }
    for (const m of src.matchAll(/^type (\w+) (?:= )?([^\s{][^\n]*)$/gm)) {
      if (m[2].startsWith('struct') || m[2].startsWith('interface')) continue;
      pkg.named.set(m[1], parseType(m[2], key, imports));
    }
    for (const m of src.matchAll(/^func \(\w+ \*?(\w+)\) MarshalJSON\(\)/gm)) pkg.marshalers.add(m[1]);
  }
  return pkg;
}

/** The table's spelling of a field's type; '' for a leaf (nothing to reorder inside). */
function spell(type: GoType, structOf: (named: string) => string | undefined, ownKey: string): string {
  if ('leaf' in type) return '';
  if ('list' in type) {
    const inner = spell(type.list, structOf, ownKey);
    return inner ? `[]${inner}` : '';
  }
  if ('map' in type) return `{}${spell(type.map, structOf, ownKey)}`;
  const struct = structOf(type.named);
  if (!struct) return '';
  return struct.startsWith(`${ownKey}.`) ? struct.slice(ownKey.length + 1) : struct;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      api: { type: 'string' },
      apimachinery: { type: 'string' },
      apiextensions: { type: 'string' },
      aggregator: { type: 'string' },
    },
  });
  const sources: Record<string, Source> = {};
  const repos: Record<string, string> = {
    api: 'kubernetes/api',
    apimachinery: 'kubernetes/apimachinery',
    apiextensions: 'kubernetes/apiextensions-apiserver',
    aggregator: 'kubernetes/kube-aggregator',
  };
  for (const [name, repo] of Object.entries(repos)) {
    const dir = values[name as keyof typeof values];
    if (!dir) throw new Error(`--${name} DIR (a checkout or git directory of ${repo}) is required`);
    sources[name] = openSource(repo, dir);
  }

  const pkgs = new Map<string, Pkg>();
  const pkgOf = (key: string): Pkg => {
    let pkg = pkgs.get(key);
    if (!pkg) pkgs.set(key, (pkg = parsePackage(key, sources)));
    return pkg;
  };
  const split = (named: string): [Pkg, string] => {
    const dot = named.lastIndexOf('.');
    return [pkgOf(named.slice(0, dot)), named.slice(dot + 1)];
  };

  /** The struct a named type encodes as, following named types; undefined for leaves. */
  const structOf = (named: string): string | undefined => {
    const [pkg, name] = split(named);
    if (SCHEMA_UNIONS.has(name)) return `${pkg.key}.JSONSchemaProps`;
    if (pkg.marshalers.has(name)) return undefined;
    if (pkg.structs.has(name)) return `${pkg.key}.${name}`;
    return undefined;
  };
  const resolve = (type: GoType): GoType => {
    if (!('named' in type)) return type;
    const [pkg, name] = split(type.named);
    const alias = pkg.named.get(name);
    if (alias && !pkg.marshalers.has(name) && !SCHEMA_UNIONS.has(name)) return resolve(alias);
    return type;
  };
  const deep = (type: GoType): GoType => {
    const t = resolve(type);
    if ('list' in t) return { list: deep(t.list) };
    if ('map' in t) return { map: deep(t.map) };
    return t;
  };

  /** A struct's encoded fields: embedded structs without a JSON name spliced in at their place. */
  const encodedFields = (struct: string): Array<{ json: string; type: GoType }> => {
    const [pkg, name] = split(struct);
    const out: Array<{ json: string; type: GoType; depth: number }> = [];
    const walk = (fields: GoField[], depth: number): void => {
      for (const f of fields) {
        const inner = f.json === '' && 'named' in f.type ? structOf(f.type.named) : undefined;
        if (inner) {
          const [innerPkg, innerName] = split(inner);
          walk(innerPkg.structs.get(innerName)!, depth + 1);
        } else out.push({ json: f.json || f.goName, type: deep(f.type), depth });
      }
    };
    walk(pkg.structs.get(name)!, 0);
    // Go's rule for a name promoted at several depths: the shallowest wins.
    return out.filter((f) => !out.some((g) => g.json === f.json && g.depth < f.depth));
  };

  const table = new Map<string, string>();
  const pending: string[] = [];
  const want = (struct: string): void => {
    if (!table.has(struct)) {
      table.set(struct, '');
      pending.push(struct);
    }
  };
  const visit = (type: GoType): void => {
    if ('list' in type) visit(type.list);
    else if ('map' in type) visit(type.map);
    else if ('named' in type) {
      const s = structOf(type.named);
      if (s) want(s);
    }
  };

  const roots = new Set<string>();
  for (const def of builtinResourceDefs()) {
    const key = goStructKey(def.group, def.version, def.kind);
    if (!structOf(key)) throw new Error(`no Go struct ${key} for served kind ${def.group}/${def.version} ${def.kind}`);
    roots.add(key);
  }
  // Bodies of subresources, answered or decoded in their own kinds.
  for (const extra of SUBRESOURCE_KINDS) roots.add(extra);
  for (const root of [...roots].sort()) want(root);
  while (pending.length > 0) {
    const struct = pending.shift()!;
    const ownKey = struct.slice(0, struct.lastIndexOf('.'));
    const fields = encodedFields(struct);
    for (const f of fields) visit(f.type);
    table.set(
      struct,
      fields
        .map((f) => {
          const t = spell(f.type, structOf, ownKey);
          return t ? `${f.json}:${t}` : f.json;
        })
        .join(' '),
    );
  }

  const used = [...new Set([...table.keys()].map((k) => packageLocation(k.slice(0, k.lastIndexOf('.'))).repo))];
  const header = [
    `// Generated by scripts/gen-go-field-order.ts; do not edit. Regenerate from fetched copies of:`,
    ...used.sort().map((name) => `//   ${sources[name].repo} ${sources[name].commit}`),
    '// Each entry is a Go struct (package/version.Type) and its JSON fields in the order encoding/json',
    '// writes them. A field holding something to reorder names its type: `T` a struct (of the same',
    '// package unless qualified), `[]T` a list of them, `{}T` a map of them (`{}` alone: a map of',
    '// values kept as they are). Maps are written with sorted keys.',
  ];
  const body = [...table.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `  ${JSON.stringify(k).replace(/^"|"$/g, "'")}: '${v}',`);
  const text = [...header, '', 'export const GO_STRUCTS: Readonly<Record<string, string>> = {', ...body, '};', ''].join(
    '\n',
  );
  const options = (await prettier.resolveConfig(OUT)) ?? {};
  writeFileSync(OUT, await prettier.format(text, { ...options, filepath: OUT }));
  console.log(`${OUT}: ${table.size} structs for ${roots.size} kinds`);
}

await main();
