// Two lanes: `low` holds keys that only the initial list or a resync produced, so a storm of them
// (thousands of objects at startup) cannot delay a real change (kubernetes#68179). `normal` holds
// everything else. A key added to both is in `normal`.
export type Priority = 'normal' | 'low';

/** The higher of two priorities. */
export function maxPriority(a: Priority, b: Priority): Priority {
  return a === 'normal' || b === 'normal' ? 'normal' : 'low';
}
