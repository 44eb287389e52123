import { runApiserver } from './apiserver.ts';
const r = await runApiserver((s) => console.log(s));
console.log(JSON.stringify(r, null, 1));
