// The label selector string grammar (`a=b,c in (d,e),!f`), tokenised and parsed with the same
// lookahead rules as apimachinery's labels.Parse, so the same inputs are accepted and rejected
// with the same error text.
import { labelKeyError, newRequirement, type LabelOperator, type LabelRequirement } from './label-requirement.ts';

type Token = 'error' | 'eos' | ')' | ',' | '!' | '==' | '=' | '>' | 'identifier' | 'in' | '<' | '!=' | 'notin' | '(';

const KEYWORDS: Record<string, Token> = {
  ')': ')',
  ',': ',',
  '!': '!',
  '==': '==',
  '=': '=',
  '>': '>',
  in: 'in',
  '<': '<',
  '!=': '!=',
  notin: 'notin',
  '(': '(',
};

interface Item {
  tok: Token;
  lit: string;
}

const isWhitespace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecial = (ch: string): boolean => '=!(),><'.includes(ch);

function lex(input: string): Item[] {
  let pos = 0;
  // Upstream's reader returns a zero byte at the end, so an embedded NUL also ends the input.
  const read = (): string => {
    const ch = pos < input.length ? input[pos] : '\0';
    pos++;
    return ch;
  };
  const unread = (): void => {
    pos--;
  };
  const next = (): Item => {
    let ch = read();
    while (isWhitespace(ch)) ch = read();
    if (ch === '\0') return { tok: 'eos', lit: '' };
    unread();
    if (isSpecial(ch)) {
      let buffer = '';
      let last: Item | undefined;
      for (;;) {
        const c = read();
        if (c === '\0') break;
        if (!isSpecial(c)) {
          unread();
          break;
        }
        buffer += c;
        const known = KEYWORDS[buffer];
        if (known) last = { tok: known, lit: buffer };
        else if (last) {
          unread();
          break;
        }
      }
      return last ?? { tok: 'error', lit: `error expected: keyword found '${buffer}'` };
    }
    let buffer = '';
    for (;;) {
      const c = read();
      if (c === '\0') break;
      if (isSpecial(c) || isWhitespace(c)) {
        unread();
        break;
      }
      buffer += c;
    }
    return { tok: KEYWORDS[buffer] ?? 'identifier', lit: buffer };
  };
  const items: Item[] = [];
  for (;;) {
    const item = next();
    items.push(item);
    if (item.tok === 'eos') return items;
  }
}

class ParseError extends Error {}

const BINARY_OPERATORS = 'in, notin, =, ==, !=, gt, lt';

class Parser {
  private position = 0;
  private readonly items: Item[];

  constructor(input: string) {
    this.items = lex(input);
  }

  // In value position the keywords `in` and `notin` are plain identifiers.
  private lookahead(values: boolean): Item {
    return this.asValue(this.items[this.position], values);
  }

  private consume(values: boolean): Item {
    return this.asValue(this.items[this.position++], values);
  }

  private asValue(item: Item, values: boolean): Item {
    if (values && (item.tok === 'in' || item.tok === 'notin')) return { tok: 'identifier', lit: item.lit };
    return item;
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead(true);
      if (tok === 'eos') return requirements;
      if (tok !== 'identifier' && tok !== '!') {
        throw new ParseError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
      try {
        requirements.push(this.parseRequirement());
      } catch (e) {
        if (e instanceof ParseError) throw new ParseError(`unable to parse requirement: ${e.message}`);
        throw e;
      }
      const after = this.consume(true);
      if (after.tok === 'eos') return requirements;
      if (after.tok !== ',') throw new ParseError(`found '${after.lit}', expected: ',' or 'end of string'`);
      const peek = this.lookahead(true);
      if (peek.tok !== 'identifier' && peek.tok !== '!') {
        throw new ParseError(`found '${peek.lit}', expected: identifier after ','`);
      }
    }
  }

  private parseRequirement(): LabelRequirement {
    let operator: LabelOperator | undefined;
    let item = this.consume(true);
    if (item.tok === '!') {
      operator = '!';
      item = this.consume(true);
    }
    if (item.tok !== 'identifier') throw new ParseError(`found '${item.lit}', expected: identifier`);
    const key = item.lit;
    const keyErr = labelKeyError(key, '<nil>');
    if (keyErr) throw new ParseError(keyErr);
    const peek = this.lookahead(true).tok;
    if ((peek === 'eos' || peek === ',') && operator !== '!') operator = 'exists';
    if (operator === 'exists' || operator === '!') return this.build(key, operator, []);

    operator = this.parseOperator();
    const values = operator === 'in' || operator === 'notin' ? this.parseValues() : this.parseExactValue();
    return this.build(key, operator, [...values].sort());
  }

  private build(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
    const result = newRequirement(key, operator, values);
    if ('error' in result) throw new ParseError(result.error);
    return result.requirement;
  }

  private parseOperator(): LabelOperator {
    const { tok, lit } = this.consume(false);
    switch (tok) {
      case 'in':
        return 'in';
      case '=':
        return '=';
      case '==':
        return '==';
      case '>':
        return 'gt';
      case '<':
        return 'lt';
      case 'notin':
        return 'notin';
      case '!=':
        return '!=';
      default:
        throw new ParseError(`found '${lit}', expected: ${BINARY_OPERATORS}`);
    }
  }

  private parseValues(): Set<string> {
    const open = this.consume(true);
    if (open.tok !== '(') throw new ParseError(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.lookahead(true);
    if (tok === 'identifier' || tok === ',') {
      const values = this.parseIdentifiersList();
      // Upstream reports the literal it peeked before the list, not the offending one.
      if (this.consume(true).tok !== ')') throw new ParseError(`found '${lit}', expected: ')'`);
      return values;
    }
    if (tok === ')') {
      this.consume(true);
      return new Set(['']);
    }
    throw new ParseError(`found '${lit}', expected: ',', ')' or identifier`);
  }

  private parseIdentifiersList(): Set<string> {
    const values = new Set<string>();
    for (;;) {
      const { tok, lit } = this.consume(true);
      if (tok === 'identifier') {
        values.add(lit);
        const peek = this.lookahead(true);
        if (peek.tok === ',') continue;
        if (peek.tok === ')') return values;
        throw new ParseError(`found '${peek.lit}', expected: ',' or ')'`);
      }
      if (tok === ',') {
        // An empty slot before, between or after commas is the empty-string value.
        if (values.size === 0) values.add('');
        const peek = this.lookahead(true).tok;
        if (peek === ')') {
          values.add('');
          return values;
        }
        if (peek === ',') values.add('');
        continue;
      }
      throw new ParseError(`found '${lit}', expected: ',', or identifier`);
    }
  }

  private parseExactValue(): Set<string> {
    const peek = this.lookahead(true).tok;
    if (peek === 'eos' || peek === ',') return new Set(['']);
    const { tok, lit } = this.consume(true);
    if (tok === 'identifier') return new Set([lit]);
    throw new ParseError(`found '${lit}', expected: identifier`);
  }
}

/** Requirements sorted by key, or the upstream error message. */
export function parseLabelRequirements(input: string): { requirements: LabelRequirement[] } | { error: string } {
  try {
    const requirements = new Parser(input).parse();
    // Array.prototype.sort is stable, matching Go's insertion sort for short selectors.
    requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return { requirements };
  } catch (e) {
    if (e instanceof ParseError) return { error: e.message };
    throw e;
  }
}
