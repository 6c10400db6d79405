import { InterceptingCall, Metadata, status, type Interceptor } from '@grpc/grpc-js';
import {
  Connection,
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
  type ConnectionOptions,
} from '@temporalio/client';

/**
 * The client Connection every keel client opens (the CLI, the inbox, the demo, the tests): the
 * SDK's own retry of transient gRPC failures, followed by closedChannelGuard.
 */
export function connectTemporal(options: ConnectionOptions): Promise<Connection> {
  return Connection.connect({ ...options, interceptors: clientInterceptors() });
}

export function clientInterceptors(): Interceptor[] {
  return [makeGrpcRetryInterceptor(defaultGrpcRetryOptions()), closedChannelGuard];
}

/**
 * @temporalio/client's retry interceptor retries a failed call from a timer, and a Connection's
 * close() does not clear those timers: a retry that fires after close throws "Channel has been
 * shut down" inside the timer, an uncaught exception that ends the process (a server that closes
 * its connection while a call still retries; vinceblank/agent-tempo#624 met the same). Placed
 * after the retry interceptor, this turns that throw into the call's end with status CANCELLED,
 * which is not retried: the caller gets the call's failure, the process goes on.
 */
export const closedChannelGuard: Interceptor = (options, nextCall) => {
  try {
    return new InterceptingCall(nextCall(options));
  } catch (error) {
    if (!(error instanceof Error && error.message === 'Channel has been shut down')) throw error;
    // No next call: this requester answers every step itself and never passes one on.
    return new InterceptingCall(null as never, {
      start(_metadata, listener) {
        setImmediate(() =>
          listener.onReceiveStatus({
            code: status.CANCELLED,
            details: 'the connection was closed before the call could be retried',
            metadata: new Metadata(),
          }),
        );
      },
      sendMessage() {},
      halfClose() {},
      cancel() {},
    });
  }
};
