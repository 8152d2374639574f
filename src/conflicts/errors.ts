/** A server the request needs (Temporal) could not be reached: nothing was sent; the caller may retry later. */
export class ServiceUnavailableError extends Error {
  override name = 'ServiceUnavailableError';
}
