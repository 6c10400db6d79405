/**
 * The exit codes of every `keel` command, in one table (docs/configuration.md, Exit codes), so a
 * script can tell "the goal did not make it" from "you typed it wrong" from "start a worker".
 */
import { NO_WORKER_EXIT_CODE } from '../client/no-worker';

export const ExitCode = {
  /** Done: the command did what it was asked, and a goal it waited for completed. */
  Ok: 0,
  /**
   * The goal ended but did not complete (failed, cancelled, rejected: `keel run --wait`, `keel
   * watch`), or the command failed in a way keel did not foresee (the line says why).
   */
  Failed: 1,
  /**
   * Bad input, or a problem the user can fix: a wrong flag or argument (commander's own errors
   * too), an unreadable file, a goal that ended and takes no decisions.
   */
  BadInput: 2,
  /**
   * No worker answered: nothing polls the task queue, or what polls did not answer in time. The
   * goal (or the command) waits for a worker; `keel hosts` also exits with it when a host a
   * running goal is bound to is missing.
   */
  NoWorker: NO_WORKER_EXIT_CODE,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
