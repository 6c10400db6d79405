import { DefaultFailureConverter } from '@temporalio/common';

/**
 * With encryption on, failure messages and stack traces go into the failure's encoded attributes,
 * a payload the codec encrypts like any other; by default Temporal stores them in plain text, and
 * a model API error or a tool's exception can quote a prompt or a file. Clients decode them back
 * whatever their own converter. Loaded by path (`failureConverterPath`): the workflow bundle
 * needs the same converter as the worker.
 */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
