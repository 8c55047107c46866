// The dashboard API's errors: ArmErrors (src/arm/errors.ts), so they travel in ARM's envelope
// ({"error":{code,message,target?}}) like the rest of the server's answers; the wording is the dashboard's own.
import { ArmError } from '../arm/errors.js';

export const SIGN_IN_MESSAGE = 'Sign in to the aksemu dashboard with the login link that aksemu start printed, or a new one from aksemu dashboard.';

export const unauthorized = (): ArmError => new ArmError(401, 'Unauthorized', SIGN_IN_MESSAGE);
export const forbidden = (message: string): ArmError => new ArmError(403, 'Forbidden', message);
export const notFound = (message: string): ArmError => new ArmError(404, 'NotFound', message);
export const notServed = (message: string): ArmError => new ArmError(405, 'MethodNotAllowed', message);
export const badRequest = (message: string, target?: string): ArmError => new ArmError(400, 'InvalidParameter', message, target);
export const bodyTooLarge = (): ArmError => new ArmError(413, 'RequestEntityTooLarge', 'Dashboard request bodies are at most 64 KiB.');
export const tooManyStreams = (max: number): ArmError => new ArmError(429, 'TooManyRequests', `At most ${max} event streams per session.`);
export const failed = (requestId: string): ArmError => new ArmError(500, 'InternalServerError', `The dashboard failed on this request (${requestId}).`);
