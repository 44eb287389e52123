// ESLint plugin with one rule, `peerpods/boundaries`: every import of a project file must be one
// the README's boundaries allow. Plain JavaScript so eslint loads it without tsx.
//
// Each specifier is resolved against the importing file's path (relative specifiers exactly, the
// package's own name through package.json `exports`), and the resulting repo-relative path is
// matched against the entry that governs the importing file. Patterns are repo-relative paths whose
// segments are literals, `*` (any one segment), `{part}` (one of the `parts`), `{dir}` (any one
// segment) or a final `**` (anything below). A `{part}` or `{dir}` bound by `files` means the same
// folder in `allow`, so `test/{part}/**` may import `src/{part}/**` of its own part only.
import fs from 'node:fs';
import path from 'node:path';

/**
 * @typedef {{ files: string | string[], allow: string[], rule: string }} CheckedEntry
 * @typedef {{ files: string | string[], unchecked: string }} UncheckedEntry
 * @typedef {{ root: string, parts: string[], entries: (CheckedEntry | UncheckedEntry)[] }} Options
 * @typedef {Record<string, string>} Bindings
 */

const patterns = { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] };

const schema = [
  {
    type: 'object',
    required: ['root', 'parts', 'entries'],
    additionalProperties: false,
    properties: {
      root: { type: 'string' },
      parts: { type: 'array', items: { type: 'string' } },
      entries: {
        type: 'array',
        items: {
          oneOf: [
            {
              type: 'object',
              required: ['files', 'allow', 'rule'],
              additionalProperties: false,
              properties: {
                files: patterns,
                allow: { type: 'array', items: { type: 'string' } },
                rule: { type: 'string' },
              },
            },
            {
              type: 'object',
              required: ['files', 'unchecked'],
              additionalProperties: false,
              properties: { files: patterns, unchecked: { type: 'string' } },
            },
          ],
        },
      },
    },
  },
];

/**
 * Matches a repo-relative path against a pattern; returns the placeholder values, or undefined.
 * @param {string} pattern
 * @param {string[]} segments
 * @param {string[]} parts
 * @returns {Bindings | undefined}
 */
function match(pattern, segments, parts) {
  /** @type {Bindings} */
  const bound = {};
  const want = pattern.split('/');
  for (let i = 0; i < want.length; i++) {
    const w = want[i];
    if (w === '**') return segments.length > i ? bound : undefined;
    const seg = segments[i];
    if (seg === undefined) return undefined;
    if (w === '{part}' && !parts.includes(seg)) return undefined;
    if (w === '{part}' || w === '{dir}') bound[w] = seg;
    else if (w !== '*' && w !== seg) return undefined;
  }
  return want.length === segments.length ? bound : undefined;
}

/**
 * A pattern with its placeholders replaced by the folders the governing entry's `files` bound.
 * @param {string} pattern
 * @param {Bindings} bound
 */
function substitute(pattern, bound) {
  return pattern.replace(/\{part\}|\{dir\}/g, (p) => {
    const value = bound[p];
    if (value === undefined)
      throw new Error(`peerpods/boundaries: ${p} in "${pattern}" is not bound by the entry's files`);
    return value;
  });
}

/**
 * The entry that governs a file (the first whose `files` matches) and the placeholder values.
 * @param {Options} options
 * @param {string[]} segments
 */
function governing(options, segments) {
  for (const entry of options.entries) {
    for (const files of [entry.files].flat()) {
      const bound = match(files, segments, options.parts);
      if (bound) return { entry, files, bound };
    }
  }
  return undefined;
}

/** @type {Map<string, { name?: string, exports?: unknown }>} */
const manifests = new Map();

/**
 * The project's package.json, read once per root.
 * @param {string} root
 */
function manifest(root) {
  if (!manifests.has(root)) manifests.set(root, JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')));
  return manifests.get(root) ?? {};
}

/**
 * The file an `exports` entry names for this repository: a string, or under conditions the
 * `peerpods-source` one (the sources, as the dev loop and the typecheck see them), else `import`.
 * @param {unknown} target
 * @returns {string | undefined}
 */
function exportTarget(target) {
  if (typeof target === 'string') return target;
  if (target === null || typeof target !== 'object') return undefined;
  const conditions = /** @type {Record<string, unknown>} */ (target);
  return exportTarget(conditions['peerpods-source'] ?? conditions.import ?? conditions.default);
}

/**
 * The absolute path a specifier names, or undefined when it is not a file of this project
 * (a dependency, a node: builtin, or a self-reference package.json does not export).
 * @param {string} specifier
 * @param {string} importer absolute path of the importing file
 * @param {string} root
 */
function resolve(specifier, importer, root) {
  if (specifier.startsWith('.') || specifier.startsWith('/')) return path.resolve(path.dirname(importer), specifier);
  const { name, exports } = manifest(root);
  if (!name || (specifier !== name && !specifier.startsWith(`${name}/`))) return undefined;
  const key = `.${specifier.slice(name.length)}`;
  const map = typeof exports === 'string' ? { '.': exports } : /** @type {Record<string, unknown>} */ (exports ?? {});
  const file = exportTarget(map[key]);
  return file ? path.resolve(root, file) : undefined;
}

/** @param {string} from @param {string} to */
function repoPath(from, to) {
  const rel = path.relative(from, to);
  return rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)
    ? undefined
    : rel.split(path.sep).join('/');
}

/** @type {import('eslint').Rule.RuleModule} */
const boundaries = {
  meta: {
    type: 'problem',
    docs: { description: "Imports of project files must respect the README's boundaries between parts" },
    schema,
    messages: { forbidden: '{{importer}} may not import {{target}}: {{rule}}' },
  },
  create(context) {
    const options = /** @type {Options} */ (context.options[0]);
    const root = path.resolve(options.root);
    const file = repoPath(root, context.physicalFilename);
    const governed = file === undefined ? undefined : governing(options, file.split('/'));
    if (!governed || !('allow' in governed.entry)) return {};
    const { entry, files, bound } = governed;
    const allow = entry.allow.map((p) => substitute(p, bound));
    const importer = substitute(files, bound).replace(/\/\*\*$/, '');

    /** @param {import('estree').Node | null | undefined} source */
    function check(source) {
      if (!source) return;
      const specifier =
        source.type === 'Literal' && typeof source.value === 'string'
          ? source.value
          : source.type === 'TemplateLiteral' && source.expressions.length === 0
            ? source.quasis[0].value.cooked
            : undefined;
      if (typeof specifier !== 'string') return;
      const resolved = resolve(specifier, context.physicalFilename, root);
      const target = resolved === undefined ? undefined : repoPath(root, resolved);
      if (target === undefined || target.split('/').includes('node_modules')) return;
      const segments = target.split('/');
      if (allow.some((p) => match(p, segments, options.parts))) return;
      context.report({ node: source, messageId: 'forbidden', data: { importer, target, rule: entry.rule } });
    }

    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
      // `typeof import('…')` and `import x = require('…')` in TypeScript (no estree types for these).
      /** @param {{ source?: import('estree').Literal, argument?: { literal?: import('estree').Literal } }} node */
      TSImportType: (node) => check(node.source ?? node.argument?.literal),
      /** @param {{ expression: import('estree').Literal }} node */
      TSExternalModuleReference: (node) => check(node.expression),
    };
  },
};

export default { meta: { name: 'peerpods' }, rules: { boundaries } };
