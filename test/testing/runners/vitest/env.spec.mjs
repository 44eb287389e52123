// peerpods/testing under vitest (the suite is ../suite.mjs).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineSuite } from '../suite.mjs';

defineSuite({ describe, it, expect, beforeAll, afterAll }, 'vitest');
