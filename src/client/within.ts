/**
 * The promise's value, or undefined when it takes longer than `ms`; it is then left to settle (a
 * late failure is nobody's to handle). For answers a view may do without: a closed goal's events,
 * a delegated child's progress.
 */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  promise.catch(() => undefined);
  try {
    return await Promise.race([
      promise,
      new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
