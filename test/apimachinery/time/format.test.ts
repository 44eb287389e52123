import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatMicroTime, formatTime, parseMicroTime } from '../../../src/apimachinery/time/index.ts';

const AT = Date.UTC(2024, 4, 1, 10, 0, 7, 123);

test('formatTime takes epoch ms or a Date and drops the fraction (never rounds up)', () => {
  assert.equal(formatTime(AT), '2024-05-01T10:00:07Z');
  assert.equal(formatTime(new Date(AT)), '2024-05-01T10:00:07Z');
  assert.equal(formatTime(Date.UTC(2024, 4, 1, 10, 0, 7, 999)), '2024-05-01T10:00:07Z');
  assert.equal(formatTime(-500), '1969-12-31T23:59:59Z');
});

test('formatMicroTime writes six fractional digits; finer sources pass their microseconds', () => {
  assert.equal(formatMicroTime(AT), '2024-05-01T10:00:07.123000Z');
  assert.equal(formatMicroTime(Date.UTC(2024, 4, 1, 10, 0, 7), 42), '2024-05-01T10:00:07.000042Z');
  assert.equal(formatMicroTime(Date.UTC(2024, 4, 1, 10, 0, 7), 999_999), '2024-05-01T10:00:07.999999Z');
});

test('parseMicroTime reads what the formatters write, NaN for nothing', () => {
  assert.equal(parseMicroTime(formatMicroTime(AT)), AT);
  assert.equal(parseMicroTime(formatTime(AT)), AT - 123);
  assert.ok(Number.isNaN(parseMicroTime(undefined)));
  assert.ok(Number.isNaN(parseMicroTime('')));
});
