// Field paths rendered the way apimachinery's field.Path prints them: `spec.versions[0].name`,
// `properties[spec]` for map keys. `null` stands for Go's nil path, which prints as "<nil>" — kube
// really reports some schema errors (anyOf, oneOf, ...) with field "<nil>".

export type Path = string | null;

export function child(p: Path, ...names: string[]): string {
  let out = p;
  for (const n of names) out = out === null ? n : `${out}.${n}`;
  return out ?? '';
}

export function index(p: Path, i: number): string {
  return `${p ?? ''}[${i}]`;
}

export function key(p: Path, k: string): string {
  return `${p ?? ''}[${k}]`;
}

export function render(p: Path): string {
  return p ?? '<nil>';
}
