// The sandbox run_command uses, for tools that run commands too (see README, Sandbox).
export {
  runSandboxedCommand,
  type SandboxedCommandOptions,
  type SandboxedCommandResult,
} from './run-sandboxed-command';
export { describeSandbox, sandboxStatus, type SandboxStatus } from './sandbox-status';
