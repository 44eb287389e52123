// The syntax error Go's encoding/json (and sigs.k8s.io/json, which kube-apiserver decodes with)
// reports for a document that is not JSON, e.g. `invalid character 'a' looking for beginning of
// value`. kube-apiserver puts that text into its decode errors, and clients show it verbatim, so
// our errors carry Go's wording instead of the JavaScript parser's. The walk follows Go's
// scanner (encoding/json/scanner.go): byte by byte, first error wins.
import { goQuote } from '../strings/goquote.ts';

const UNEXPECTED_END = 'unexpected end of JSON input';
/** maxNestingDepth in scanner.go. */
const MAX_NESTING_DEPTH = 10000;

class GoSyntaxError extends Error {}

/** quoteChar in scanner.go: the offending byte as a Go character literal. */
function quoteChar(c: number): string {
  if (c === 0x27) return `'\\''`;
  if (c === 0x22) return `'"'`;
  const quoted = goQuote(String.fromCharCode(c));
  return `'${quoted.slice(1, -1)}'`;
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** What the scanner expects after a value closes: the rest of an object, an array, or nothing. */
type Container = 'object' | 'array';

class Scanner {
  private pos = 0;
  /** The open objects and arrays; its length is the nesting depth. */
  private readonly open: Container[] = [];

  constructor(private readonly data: Uint8Array) {}

  /** Throws the first syntax error, as Go's checkValid does; iterative, so depth costs no stack. */
  checkValid(): void {
    this.skipSpace();
    this.beginValue();
    for (;;) {
      this.skipSpace();
      const container = this.open[this.open.length - 1];
      if (container === undefined) break;
      const c = this.peek();
      const close = container === 'object' ? 0x7d : 0x5d;
      if (c === close) {
        this.pos++;
        this.open.pop();
        continue;
      }
      if (c !== 0x2c) this.fail(container === 'object' ? 'after object key:value pair' : 'after array element');
      this.pos++;
      this.skipSpace();
      if (container === 'object') this.key();
      this.beginValue();
    }
    if (this.pos < this.data.length) this.fail('after top-level value');
  }

  private peek(): number {
    if (this.pos >= this.data.length) throw new GoSyntaxError(UNEXPECTED_END);
    return this.data[this.pos];
  }

  private fail(context: string): never {
    throw new GoSyntaxError(`invalid character ${quoteChar(this.data[this.pos])} ${context}`);
  }

  private skipSpace(): void {
    while (this.pos < this.data.length && isSpace(this.data[this.pos])) this.pos++;
  }

  /** A scalar is consumed whole; `{` or `[` opens a container (and its first key or element). */
  private beginValue(): void {
    for (;;) {
      const c = this.peek();
      if (c === 0x7b || c === 0x5b) {
        if (this.open.length >= MAX_NESTING_DEPTH) this.fail('exceeded max depth');
        this.pos++;
        this.skipSpace();
        const container: Container = c === 0x7b ? 'object' : 'array';
        if (this.peek() === (c === 0x7b ? 0x7d : 0x5d)) {
          this.pos++;
          return;
        }
        this.open.push(container);
        if (container === 'object') this.key();
        continue;
      }
      if (c === 0x22) return this.string();
      if (c === 0x2d || isDigit(c)) return this.number();
      if (c === 0x74) return this.literal('true');
      if (c === 0x66) return this.literal('false');
      if (c === 0x6e) return this.literal('null');
      this.fail('looking for beginning of value');
    }
  }

  /** An object key and its colon, leaving the scanner at the value. */
  private key(): void {
    if (this.peek() !== 0x22) this.fail('looking for beginning of object key string');
    this.string();
    this.skipSpace();
    if (this.peek() !== 0x3a) this.fail('after object key');
    this.pos++;
    this.skipSpace();
  }

  private string(): void {
    this.pos++;
    for (;;) {
      const c = this.peek();
      if (c === 0x22) {
        this.pos++;
        return;
      }
      if (c < 0x20) this.fail('in string literal');
      this.pos++;
      if (c !== 0x5c) continue;
      const e = this.peek();
      if (e === 0x75) {
        this.pos++;
        for (let i = 0; i < 4; i++) {
          if (!isHex(this.peek())) this.fail('in \\u hexadecimal character escape');
          this.pos++;
        }
      } else if ('"\\/bfnrt'.includes(String.fromCharCode(e))) {
        this.pos++;
      } else {
        this.fail('in string escape code');
      }
    }
  }

  /** Numbers may end the input; only a missing digit is an error. */
  private number(): void {
    if (this.data[this.pos] === 0x2d) {
      this.pos++;
      if (!isDigit(this.peek())) this.fail('in numeric literal');
    }
    if (this.data[this.pos] === 0x30) this.pos++;
    else this.digits();
    if (this.at(0x2e)) {
      this.pos++;
      if (!isDigit(this.peek())) this.fail('after decimal point in numeric literal');
      this.digits();
    }
    if (this.at(0x65) || this.at(0x45)) {
      this.pos++;
      if (this.at(0x2b) || this.at(0x2d)) this.pos++;
      if (!isDigit(this.peek())) this.fail('in exponent of numeric literal');
      this.digits();
    }
  }

  private at(c: number): boolean {
    return this.pos < this.data.length && this.data[this.pos] === c;
  }

  private digits(): void {
    while (this.pos < this.data.length && isDigit(this.data[this.pos])) this.pos++;
  }

  private literal(word: string): void {
    this.pos++;
    for (let i = 1; i < word.length; i++) {
      if (this.peek() !== word.charCodeAt(i)) this.fail(`in literal ${word} (expecting '${word[i]}')`);
      this.pos++;
    }
  }
}

/**
 * Go's message for a document JSON.parse refused; undefined when Go's scanner accepts it (the
 * two disagree only on input a caller already rejected for another reason).
 */
export function goJsonSyntaxError(data: Uint8Array | string): string | undefined {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  try {
    new Scanner(bytes).checkValid();
    return undefined;
  } catch (e) {
    if (e instanceof GoSyntaxError) return e.message;
    throw e;
  }
}
