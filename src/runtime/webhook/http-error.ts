// A request the webhook server refuses with an HTTP status (a malformed review, a wrong method),
// as opposed to a review it answers.
export class HttpError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}
