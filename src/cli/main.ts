// The `peerpods` command.
import { buildProgram } from './program.ts';

buildProgram()
  .parseAsync(process.argv)
  .catch((e: unknown) => {
    console.error(`peerpods: ${(e as Error).message}`);
    process.exit(1);
  });
