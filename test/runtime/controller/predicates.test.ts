import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  admits,
  and,
  annotationsChanged,
  generationChanged,
  labelsChanged,
  newPredicate,
  not,
  or,
  resourceVersionChanged,
} from '../../../src/runtime/controller/index.ts';
import { obj } from './fake-informer.ts';

const base = obj('a', { generation: 1, resourceVersion: '10', labels: { app: 'x' }, annotations: { note: '1' } });
const statusOnly = obj('a', { generation: 1, resourceVersion: '11', labels: { app: 'x' }, annotations: { note: '1' } });
const specChange = obj('a', { generation: 2, resourceVersion: '12', labels: { app: 'x' }, annotations: { note: '1' } });
const relabel = obj('a', { generation: 1, resourceVersion: '13', labels: { app: 'y' }, annotations: { note: '1' } });
const reannotate = obj('a', { generation: 1, resourceVersion: '14', labels: { app: 'x' }, annotations: {} });

describe('predicates', () => {
  it('generationChanged passes spec changes only, and never hides creates or deletes', () => {
    const p = generationChanged();
    assert.equal(admits(p, 'update', statusOnly, base), false);
    assert.equal(admits(p, 'update', specChange, base), true);
    assert.equal(admits(p, 'create', base), true);
    assert.equal(admits(p, 'delete', base), true);
  });

  it('labelsChanged / annotationsChanged compare maps, treating absent as empty', () => {
    assert.equal(admits(labelsChanged(), 'update', relabel, base), true);
    assert.equal(admits(labelsChanged(), 'update', statusOnly, base), false);
    const noLabels = obj('a', { labels: {} });
    const undefLabels = obj('a');
    assert.equal(admits(labelsChanged(), 'update', noLabels, undefLabels), false);
    assert.equal(admits(annotationsChanged(), 'update', reannotate, base), true);
    assert.equal(admits(annotationsChanged(), 'update', relabel, base), false);
  });

  it('resourceVersionChanged drops resyncs', () => {
    assert.equal(admits(resourceVersionChanged(), 'update', base, base), false);
    assert.equal(admits(resourceVersionChanged(), 'update', statusOnly, base), true);
  });

  it('or/and/not combine', () => {
    const specOrLabels = or(generationChanged(), labelsChanged());
    assert.equal(admits(specOrLabels, 'update', relabel, base), true);
    assert.equal(admits(specOrLabels, 'update', specChange, base), true);
    assert.equal(admits(specOrLabels, 'update', statusOnly, base), false);
    const both = and(resourceVersionChanged(), labelsChanged());
    assert.equal(admits(both, 'update', relabel, base), true);
    assert.equal(admits(both, 'update', statusOnly, base), false);
    const notGen = not(generationChanged());
    assert.equal(admits(notGen, 'update', statusOnly, base), true);
    assert.equal(admits(notGen, 'create', base), false, 'not() of a pass-through hook drops');
  });

  it('custom predicates see isInitialList', () => {
    const skipInitial = newPredicate({ create: (_o, initial) => !initial });
    assert.equal(admits(skipInitial, 'create', base, undefined, true), false);
    assert.equal(admits(skipInitial, 'create', base, undefined, false), true);
    assert.equal(admits(skipInitial, 'update', specChange, base), true);
  });
});
