import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  formatDuration,
  formatMicroTime,
  formatTime,
  goTimeString,
  humanDuration,
  parseDuration,
  shortHumanDuration,
} from '../../../src/apimachinery/time/index.ts';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;
const Y = 365 * D;

test('humanDuration: kube TestHumanDuration', () => {
  const table: Array<[number, string]> = [
    [S, '1s'],
    [70 * S, '70s'],
    [190 * S, '3m10s'],
    [70 * M, '70m'],
    [47 * H, '47h'],
    [49 * H, '2d1h'],
    [(8 * 24 + 2) * H, '8d'],
    [367 * D, '367d'],
    [(365 * 2 * 24 + 25) * H, '2y1d'],
    [(365 * 8 * 24 + 2) * H, '8y'],
  ];
  for (const [ms, want] of table) assert.equal(humanDuration(ms), want, String(ms));
});

test('humanDuration: every boundary (kube TestHumanDurationBoundaries, ms resolution)', () => {
  const table: Array<[number, string]> = [
    [-2 * S, '<invalid>'],
    [-2 * S + 1, '0s'],
    [-1, '0s'],
    [0, '0s'],
    [S - 1, '0s'],
    [2 * M - 1, '119s'],
    [2 * M, '2m'],
    [2 * M + S, '2m1s'],
    [10 * M - 1, '9m59s'],
    [10 * M, '10m'],
    [10 * M + S, '10m'],
    [3 * H - 1, '179m'],
    [3 * H, '3h'],
    [3 * H + M, '3h1m'],
    [8 * H - 1, '7h59m'],
    [8 * H, '8h'],
    [8 * H + 59 * M, '8h'],
    [2 * D - 1, '47h'],
    [2 * D, '2d'],
    [2 * D + H, '2d1h'],
    [8 * D - 1, '7d23h'],
    [8 * D, '8d'],
    [8 * D + 23 * H, '8d'],
    [2 * Y - 1, '729d'],
    [2 * Y, '2y'],
    [2 * Y + 23 * H, '2y'],
    [2 * Y + 23 * H + 59 * M, '2y'],
    [2 * Y + D - 1, '2y'],
    [2 * Y + D, '2y1d'],
    [3 * Y, '3y'],
    [7 * Y, '7y'],
    [8 * Y - 1, '7y364d'],
    [8 * Y, '8y'],
    [8 * Y + 364 * D, '8y'],
    [9 * Y, '9y'],
    [Number.NaN, '<invalid>'],
  ];
  for (const [ms, want] of table) assert.equal(humanDuration(ms), want, String(ms));
});

test('shortHumanDuration: kube TestShortHumanDurationBoundaries', () => {
  const table: Array<[number, string]> = [
    [-2 * S, '<invalid>'],
    [-2 * S + 1, '0s'],
    [0, '0s'],
    [S - 1, '0s'],
    [S, '1s'],
    [2 * S - 1, '1s'],
    [M - 1, '59s'],
    [M, '1m'],
    [2 * M - 1, '1m'],
    [H - 1, '59m'],
    [H, '1h'],
    [2 * H - 1, '1h'],
    [D - 1, '23h'],
    [D, '1d'],
    [2 * D - 1, '1d'],
    [Y - 1, '364d'],
    [Y, '1y'],
    [2 * Y - 1, '1y'],
    [2 * Y, '2y'],
  ];
  for (const [ms, want] of table) assert.equal(shortHumanDuration(ms), want, String(ms));
});

test('formatTime, formatMicroTime and goTimeString', () => {
  const d = new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 678));
  assert.equal(formatTime(d), '2024-01-02T03:04:05Z');
  assert.equal(formatMicroTime(d), '2024-01-02T03:04:05.678000Z');
  assert.equal(formatMicroTime(new Date(Date.UTC(2024, 11, 31, 23, 59, 59, 5))), '2024-12-31T23:59:59.005000Z');
  assert.equal(formatMicroTime(new Date(Date.UTC(2024, 0, 1))), '2024-01-01T00:00:00.000000Z');
  assert.equal(formatTime(new Date(Date.UTC(999, 0, 1))), '0999-01-01T00:00:00Z');
  assert.equal(goTimeString(d), '2024-01-02 03:04:05.678 +0000 UTC');
  assert.equal(goTimeString(new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 500))), '2024-01-02 03:04:05.5 +0000 UTC');
  assert.equal(goTimeString(new Date(Date.UTC(2024, 0, 2, 3, 4, 5))), '2024-01-02 03:04:05 +0000 UTC');
});

test('formatDuration: Go Duration.String() to whole seconds', () => {
  assert.equal(formatDuration(0), '0s');
  assert.equal(formatDuration(15 * S + 999), '15s');
  assert.equal(formatDuration(42 * M), '42m0s');
  assert.equal(formatDuration(H + 2 * M + 3 * S), '1h2m3s');
  assert.equal(formatDuration(-5 * S), '0s');
});

test('parseDuration: Go-style flag durations in ms, undefined for anything else', () => {
  assert.equal(parseDuration('0'), 0);
  assert.equal(parseDuration('10m'), 10 * M);
  assert.equal(parseDuration('1h30m'), 90 * M);
  assert.equal(parseDuration('1.5h'), 90 * M);
  assert.equal(parseDuration('500ms'), 500);
  for (const bad of ['', '10', '5x', '1m 30s', '-1s', 'm']) assert.equal(parseDuration(bad), undefined, bad);
});
