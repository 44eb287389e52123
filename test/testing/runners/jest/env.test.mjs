// peerpods/testing under jest, as native ES modules (the suite is ../suite.mjs).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { defineSuite } from '../suite.mjs';

defineSuite({ describe, it, expect, beforeAll, afterAll }, 'jest');
