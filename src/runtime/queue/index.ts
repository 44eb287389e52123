export { WorkQueue } from './work-queue.ts';
export type { AddOptions, ShutDownOptions, WorkQueueOptions } from './work-queue.ts';
export type { Priority } from './priority.ts';
export {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
} from './rate-limiter.ts';
export type { RateLimiter, RateLimiterOptions } from './rate-limiter.ts';
export { prometheusQueueMetrics, noopQueueMetrics } from './metrics.ts';
export type { QueueMetrics } from './metrics.ts';
