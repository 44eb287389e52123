// `peerpods demo`: the whole peer-pod story, unattended, on a running stack.
import type { DemoContext } from './context.ts';
import { runSteps } from './runner.ts';
import type { Step, StepResult } from './runner.ts';
import { failureSteps } from './steps-failure.ts';
import { lifeSteps } from './steps-life.ts';
import { limitSteps } from './steps-limits.ts';

export type { DemoContext } from './context.ts';
export { formatStep, runSteps } from './runner.ts';
export type { Step, StepResult } from './runner.ts';

export function demoSteps(): Step<DemoContext>[] {
  return [...lifeSteps, ...limitSteps, ...failureSteps];
}

export function runDemo(ctx: DemoContext, print: (line: string) => void): Promise<StepResult[]> {
  return runSteps(demoSteps(), ctx, print);
}
