// Clean shutdown on SIGINT/SIGTERM: run the stop function once, exit 0; a second signal forces.
export function onShutdown(stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      console.error(`peerpods: ${signal} again, exiting now`);
      process.exit(1);
    }
    stopping = true;
    console.log(`peerpods: ${signal} received, stopping`);
    stop().then(
      () => process.exit(0),
      (e: unknown) => {
        console.error(`peerpods: error while stopping: ${(e as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}
