// Resource handlers: controllers written as an ordered chain of small handlers (see types.ts).
export type { HandlerContext, HandlerEvent, ResourceHandler } from './types.ts';
export { crudHandler } from './crud.ts';
export type { CrudResource, Patch } from './crud.ts';
export { diffByName, intersectByName, ignoreAlreadyExists, ignoreNotFound } from './diff.ts';
export { HandlerChain, HandlerError } from './chain.ts';
export type { HandlerChainOptions, HandlerChainResult } from './chain.ts';
