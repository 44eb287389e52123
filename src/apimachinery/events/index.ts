export { EventNamer, newEvent, objectReference } from './event.ts';
export type { EventInit } from './event.ts';
export type { CoreEvent, EventSource, EventType, ObjectReference } from './types.ts';
