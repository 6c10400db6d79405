/** A notification setting the worker cannot use: one line naming the variable or file and field, no secret. */
export class NotificationConfigError extends Error {
  override name = 'NotificationConfigError';
}
