// A refusal the user can act on: the CLI prints its message and exits 1, without a stack.
export class ScaffoldError extends Error {
  override name = 'ScaffoldError';
}
