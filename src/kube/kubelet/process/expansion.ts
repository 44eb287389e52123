// `$(VAR)` references in env values, as kubernetes/third_party/forked/golang/expansion/expand.go:
// `$(NAME)` is replaced when NAME is known and kept verbatim otherwise, `$$` is an escaped `$`,
// and an unterminated `$(` or a `$` before anything else is copied as written.

export type Mapping = (name: string) => string;

/** Looks a name up in each context in turn; an unknown name stays `$(name)`. */
export function mappingFuncFor(...contexts: ReadonlyArray<Readonly<Record<string, string>>>): Mapping {
  return (name) => {
    for (const vars of contexts) if (Object.hasOwn(vars, name)) return vars[name];
    return `$(${name})`;
  };
}

export function expand(input: string, mapping: Mapping): string {
  let out = '';
  let checkpoint = 0;
  for (let cursor = 0; cursor < input.length; cursor++) {
    if (input[cursor] !== '$' || cursor + 1 >= input.length) continue;
    out += input.slice(checkpoint, cursor);
    const next = input[cursor + 1];
    let advance = 1;
    if (next === '$') out += '$';
    else if (next === '(') {
      const close = input.indexOf(')', cursor + 2);
      if (close >= 0) {
        out += mapping(input.slice(cursor + 2, close));
        advance = close - cursor;
      } else out += '$(';
    } else out += `$${next}`;
    cursor += advance;
    checkpoint = cursor + 1;
  }
  return out + input.slice(checkpoint);
}
