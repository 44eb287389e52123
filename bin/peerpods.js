#!/usr/bin/env node
// The CLI runs straight from the TypeScript sources through tsx, so there is no build step
// between `npm ci` and `npm start`.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
