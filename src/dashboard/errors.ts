// The dashboard API's errors, in ARM's envelope ({"error":{code,message,target?}}), as the rest of the server answers.
export class UiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly target?: string,
  ) {
    super(message);
  }

  toJSON(): { error: { code: string; message: string; target?: string } } {
    return { error: { code: this.code, message: this.message, ...(this.target === undefined ? {} : { target: this.target }) } };
  }
}

export const SIGN_IN_MESSAGE = 'Sign in to the aksemu dashboard with the login link that aksemu start printed, or a new one from aksemu dashboard.';

export const unauthorized = (): UiError => new UiError(401, 'Unauthorized', SIGN_IN_MESSAGE);
export const forbidden = (message: string): UiError => new UiError(403, 'Forbidden', message);
export const notFound = (message: string): UiError => new UiError(404, 'NotFound', message);
export const badRequest = (message: string, target?: string): UiError => new UiError(400, 'InvalidParameter', message, target);
