// Runs demo steps in order, timing each and printing one ✓/✗ line per step. The story is one
// cluster's history, so the first failing step ends the run: what follows would only fail for its sake.

export interface Step<C> {
  title: string;
  /** Returns a short detail for the ✓ line; throws to fail the step. */
  run(ctx: C): Promise<string | void>;
}

export interface StepResult {
  title: string;
  ok: boolean;
  ms: number;
  detail: string;
}

export function formatStep(r: StepResult, index: number): string {
  const secs = `${(r.ms / 1000).toFixed(2)} s`.padStart(8);
  return `${r.ok ? '✓' : '✗'} ${String(index + 1).padStart(2)}. ${r.title} (${secs})${r.detail ? ` — ${r.detail}` : ''}`;
}

export async function runSteps<C>(steps: Step<C>[], ctx: C, print: (line: string) => void): Promise<StepResult[]> {
  const results: StepResult[] = [];
  for (const step of steps) {
    const started = performance.now();
    let result: StepResult;
    try {
      const detail = (await step.run(ctx)) ?? '';
      result = { title: step.title, ok: true, ms: performance.now() - started, detail };
    } catch (err) {
      result = { title: step.title, ok: false, ms: performance.now() - started, detail: (err as Error).message };
    }
    results.push(result);
    print(formatStep(result, results.length - 1));
    if (!result.ok) break;
  }
  return results;
}
