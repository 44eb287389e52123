// Where Go's base64.StdEncoding.Decode gives up on a string, as encoding/json decodes a []byte
// field from a JSON string: kube answers `illegal base64 data at input byte N` for a Secret's data
// that is not base64. Go's decoder is lenient in one way (it skips \r and \n anywhere) and strict
// in others (padding is required, nothing may follow it), and N is a byte offset into the UTF-8
// text, found the way its decodeQuantum walks it (src/encoding/base64/base64.go).

const PAD = 0x3d; // '='
const LF = 0x0a;
const CR = 0x0d;

function isAlphabet(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2f;
}

/** base64.CorruptInputError's text for `s`, or undefined when Go decodes it. */
export function goBase64Error(s: string): string | undefined {
  const src = Buffer.from(s, 'utf8');
  let si = 0;
  while (si < src.length) {
    const step = decodeQuantum(src, si);
    if (typeof step === 'object') return `illegal base64 data at input byte ${step.corruptAt}`;
    si = step;
  }
  return undefined;
}

/** One quantum of up to four digits from `si`: where the next starts, or where the input is corrupt. */
function decodeQuantum(src: Buffer, si: number): number | { corruptAt: number } {
  const skipNewlines = (): void => {
    while (si < src.length && (src[si] === LF || src[si] === CR)) si++;
  };
  for (let j = 0; j < 4; j++) {
    // Padding is required: input ending inside a quantum is corrupt where the quantum began.
    if (si === src.length) return j === 0 ? si : { corruptAt: si - j };
    const c = src[si++];
    if (isAlphabet(c)) continue;
    if (c === LF || c === CR) {
      j--;
      continue;
    }
    if (c !== PAD || j < 2) return { corruptAt: si - 1 };
    if (j === 2) {
      // "==" is expected; the first is consumed.
      skipNewlines();
      if (si === src.length) return { corruptAt: src.length };
      if (src[si] !== PAD) return { corruptAt: si - 1 };
      si++;
    }
    // Padding ends the input: anything but newlines after it is trailing garbage.
    skipNewlines();
    return si < src.length ? { corruptAt: si } : si;
  }
  return si;
}
