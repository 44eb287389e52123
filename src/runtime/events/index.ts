export { EventRecorder } from './recorder.ts';
export type { EventOptions, EventRecorderOptions, EventSink, Recorder } from './recorder.ts';
export { EventCorrelator, COMBINED_PREFIX } from './correlator.ts';
export type { Correlated, CorrelatorOptions } from './correlator.ts';
export type { CoreEvent, EventType, ObjectReference } from '../../apimachinery/events/types.ts';
