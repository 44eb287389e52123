// CRD `pattern`s are Go RE2 expressions. This turns one into a JavaScript RegExp (unicode mode),
// translating the RE2 spellings JavaScript lacks, and reports invalid patterns with Go's wording
// (`error parsing regexp: missing closing ): ...`) so CRD validation rejects what kube rejects.

export type GoRegExp = { ok: true; regexp: RegExp } | { ok: false; error: string };

const JS_SYNTAX = new Set('^$\\.*+?()[]{}|/'.split(''));
const POSIX: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7f',
  blank: '\\t ',
  cntrl: '\\x00-\\x1f\\x7f',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

function hex(ch: string): string {
  return `\\x${(ch.codePointAt(0) ?? 0).toString(16).padStart(2, '0')}`;
}

function literal(ch: string): string {
  if (/[A-Za-z0-9_]/.test(ch) || (ch.codePointAt(0) ?? 0) > 0x7f) return ch;
  return JS_SYNTAX.has(ch) || ch === '-' ? `\\${ch}` : ch;
}

function fail(code: string, expr: string): GoRegExp {
  return { ok: false, error: `error parsing regexp: ${code}: \`${expr}\`` };
}

/** Translates a Go regular expression; `ok: false` carries Go's parse error text. */
export function goRegExp(pattern: string): GoRegExp {
  let flags = 'u';
  let src = pattern;
  const lead = /^\(\?([imsU]+)\)/.exec(src);
  if (lead) {
    if (lead[1].includes('i')) flags += 'i';
    if (lead[1].includes('m')) flags += 'm';
    if (lead[1].includes('s')) flags += 's';
    src = src.slice(lead[0].length);
  }
  let out = '';
  let depth = 0;
  let inClass = false;
  let lastAtom = false;
  const chars = Array.from(src);
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (c === '\\') {
      const n = chars[i + 1];
      if (n === undefined) return fail('trailing backslash at end of expression', '');
      i++;
      lastAtom = true;
      if (n === 'Q') {
        let j = i + 1;
        while (j < chars.length && !(chars[j] === '\\' && chars[j + 1] === 'E')) j++;
        out += chars
          .slice(i + 1, j)
          .map(inClass ? hex : literal)
          .join('');
        i = j + 1;
        continue;
      }
      if (/[1-9]/.test(n)) return fail('invalid escape sequence', `\\${n}`);
      if (n === 'A' && !inClass) out += '^';
      else if (n === 'z' && !inClass) out += '$';
      else if ((n === 'p' || n === 'P') && chars[i + 1] !== '{') out += `\\${n}{${chars[++i] ?? ''}}`;
      else if (n === 'x' && chars[i + 1] === '{') {
        const close = chars.indexOf('}', i);
        out += `\\u{${chars.slice(i + 2, close).join('')}}`;
        i = close;
      } else if (/[A-Za-z0-9]/.test(n)) out += `\\${n}`;
      else out += JS_SYNTAX.has(n) ? `\\${n}` : hex(n);
      continue;
    }
    if (inClass) {
      if (c === '[' && chars[i + 1] === ':') {
        let j = i + 2;
        while (j < chars.length && !(chars[j] === ':' && chars[j + 1] === ']')) j++;
        const name = chars.slice(i + 2, j).join('');
        const set = POSIX[name];
        if (!set) return fail('invalid character class range', `[:${name}:]`);
        out += set;
        i = j + 1;
        continue;
      }
      if (c === ']' && !(out.endsWith('[') || out.endsWith('[^'))) {
        inClass = false;
        out += ']';
        lastAtom = true;
        continue;
      }
      out += c === '[' || c === '/' ? `\\${c}` : c;
      continue;
    }
    switch (c) {
      case '[':
        inClass = true;
        out += '[';
        if (chars[i + 1] === '^') out += chars[++i];
        if (chars[i + 1] === ']') {
          out += '\\]';
          i++;
        }
        continue;
      case '(':
        if (chars[i + 1] === '?') {
          const rest = chars.slice(i, i + 4).join('');
          if (rest.startsWith('(?P<')) {
            out += '(?<';
            i += 3;
          } else if (rest.startsWith('(?:')) {
            out += '(?:';
            i += 2;
          } else {
            // Inline flags: JavaScript (Node 20) has no scoped modifiers, so they apply to the
            // whole expression — close enough for the case-insensitive patterns seen in CRDs.
            const inline = /^\(\?([imsU-]+)([):])/.exec(chars.slice(i).join(''));
            if (!inline) return fail('invalid or unsupported Perl syntax', rest.slice(0, rest[2] === '<' ? 4 : 3));
            for (const f of ['i', 'm', 's']) if (inline[1].includes(f) && !flags.includes(f)) flags += f;
            i += inline[0].length - 1;
            if (inline[2] === ')') continue;
            out += '(?:';
          }
        } else out += '(';
        depth++;
        lastAtom = false;
        continue;
      case ')':
        if (depth === 0) return fail('unexpected )', pattern);
        depth--;
        out += ')';
        lastAtom = true;
        continue;
      case '*':
      case '+':
      case '?': {
        if (!lastAtom) return fail('missing argument to repetition operator', c);
        out += c;
        if (chars[i + 1] === '?') out += chars[++i];
        const next = chars[i + 1];
        if (next === '*' || next === '+' || next === '?')
          return fail('invalid nested repetition operator', `${c}${next}`);
        lastAtom = false;
        continue;
      }
      case '{': {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(chars.slice(i).join(''));
        if (!m) {
          out += '\\{';
          lastAtom = true;
          continue;
        }
        if (!lastAtom) return fail('missing argument to repetition operator', m[0]);
        if (m[3] && Number(m[3]) < Number(m[1])) return fail('invalid repeat count', m[0]);
        out += m[0];
        i += m[0].length - 1;
        if (chars[i + 1] === '?') out += chars[++i];
        lastAtom = false;
        continue;
      }
      case '}':
      case ']':
      case '/':
        out += `\\${c}`;
        lastAtom = true;
        continue;
      case '|':
        out += c;
        lastAtom = false;
        continue;
      case '^':
      case '$':
        out += c;
        lastAtom = false;
        continue;
      default:
        out += c;
        lastAtom = true;
    }
  }
  if (inClass) return fail('missing closing ]', `[${src.slice(src.lastIndexOf('[') + 1)}`);
  if (depth > 0) return fail('missing closing )', pattern);
  try {
    return { ok: true, regexp: new RegExp(out, flags) };
  } catch (e) {
    return { ok: false, error: `error parsing regexp: ${(e as Error).message}` };
  }
}
