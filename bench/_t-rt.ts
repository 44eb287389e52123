import { runRuntime } from './runtime.ts';
const r = await runRuntime((s) => console.log(s));
console.log(JSON.stringify(r, null, 1));
