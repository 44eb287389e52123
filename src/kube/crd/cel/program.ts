// Compiles x-kubernetes-validations expressions with @bufbuild/cel. The library parses and plans
// but exports no type checker, so compilation here is: the library's parse, then a check that
// every identifier and function the expression names is declared (self, oldSelf, macro variables,
// the standard library and the strings extension) — an unknown name is refused when the CRD is
// written, as kube-apiserver refuses it, instead of failing on every object later.
import { celEnv, CelScalar, parse, plan } from '@bufbuild/cel';
import type { CelResult } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';

type Parsed = ReturnType<typeof parse>;
type Expr = Parsed['expr'];
type Bindings = { self: unknown; oldSelf?: unknown };

export interface CelProgram {
  /** Whether the expression names `oldSelf` (kube's transition rules). */
  usesOldSelf: boolean;
  run(bindings: Bindings): CelResult;
}

/** A compile error; `message` is the issues text kube prints after "compilation failed: ". */
export class CelCompileError extends Error {}

const VARIABLES = ['self', 'oldSelf'];
const env = celEnv({ variables: { self: CelScalar.DYN, oldSelf: CelScalar.DYN }, funcs: strings });

/** cel-go's issue form: `ERROR: <input>:line:col: text`, then the source line and a caret. */
function issue(source: string, offset: number, text: string): string {
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const column = offset - lineStart;
  const sourceLine = source.slice(lineStart).split('\n')[0] ?? '';
  return `ERROR: <input>:${line}:${column + 1}: ${text}\n | ${sourceLine}\n | ${'.'.repeat(column)}^`;
}

function declared(name: string, hasTarget: boolean, arity: number): boolean {
  // Operators and macro internals (`_&&_`, `@in`, `@not_strictly_false`) are the planner's own.
  if (name.startsWith('_') || name.startsWith('@')) return true;
  const group = env.funcs.find(name);
  return (
    group !== undefined &&
    [...group].some((f) => (f.target !== undefined) === hasTarget && f.arguments.length === arity)
  );
}

/** The names an expression uses that nothing declares, with where each is. */
function undeclared(e: Expr | undefined, scope: ReadonlySet<string>, out: { id: bigint; text: string }[]): void {
  if (!e) return;
  const k = e.exprKind;
  switch (k.case) {
    case 'identExpr':
      if (!scope.has(k.value.name))
        out.push({ id: e.id, text: `undeclared reference to '${k.value.name}' (in container '')` });
      return;
    case 'selectExpr':
      return undeclared(k.value.operand, scope, out);
    case 'callExpr': {
      const c = k.value;
      undeclared(c.target, scope, out);
      c.args.forEach((a) => undeclared(a, scope, out));
      if (!declared(c.function, c.target !== undefined, c.args.length)) {
        out.push({
          id: e.id,
          text: env.funcs.find(c.function)
            ? `found no matching overload for '${c.function}' applied to ${c.args.length} argument(s)`
            : `undeclared reference to '${c.function}' (in container '')`,
        });
      }
      return;
    }
    case 'listExpr':
      return k.value.elements.forEach((x) => undeclared(x, scope, out));
    case 'structExpr':
      return k.value.entries.forEach((x) => {
        if (x.keyKind.case === 'mapKey') undeclared(x.keyKind.value, scope, out);
        undeclared(x.value, scope, out);
      });
    case 'comprehensionExpr': {
      const c = k.value;
      undeclared(c.iterRange, scope, out);
      undeclared(c.accuInit, scope, out);
      const inner = new Set([...scope, c.iterVar, c.iterVar2, c.accuVar].filter(Boolean));
      for (const x of [c.loopCondition, c.loopStep, c.result]) undeclared(x, inner, out);
      return;
    }
    default:
      return;
  }
}

function syntaxIssue(source: string, err: unknown): string {
  const e = err as { location?: { start?: { offset?: number } }; rawMessage?: string; message?: string };
  const text = e.rawMessage ?? e.message ?? String(err);
  return issue(source, e.location?.start?.offset ?? 0, `Syntax error: ${text}`);
}

/** Compiles one expression; throws CelCompileError with cel-go's issue layout when it cannot. */
export function compileCel(source: string): CelProgram {
  let parsed: Parsed;
  try {
    parsed = parse(source);
  } catch (err) {
    throw new CelCompileError(syntaxIssue(source, err));
  }
  const missing: { id: bigint; text: string }[] = [];
  undeclared(parsed.expr, new Set(VARIABLES), missing);
  if (missing.length) {
    const positions = parsed.sourceInfo?.positions ?? {};
    throw new CelCompileError(missing.map((m) => issue(source, positions[Number(m.id)] ?? 0, m.text)).join('\n'));
  }
  const usesOldSelf = referencesOldSelf(parsed.expr);
  const program = plan(env, parsed);
  return { usesOldSelf, run: (b) => program(b as Parameters<typeof program>[0]) };
}

function referencesOldSelf(e: Expr | undefined): boolean {
  const found: { id: bigint; text: string }[] = [];
  // Reuse the reference walk: with only `self` declared, `oldSelf` shows up as undeclared.
  undeclared(e, new Set(['self']), found);
  return found.some((f) => f.text.startsWith("undeclared reference to 'oldSelf'"));
}
