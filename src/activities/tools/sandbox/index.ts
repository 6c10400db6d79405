// The sandbox run_command uses, for tools that run commands too (see docs/approvals-and-security.md, Sandbox).
export {
  runSandboxedCommand,
  type SandboxedCommandOptions,
  type SandboxedCommandResult,
} from './run-sandboxed-command';
export { describeSandbox, sandboxStatus, type SandboxStatus } from './sandbox-status';
