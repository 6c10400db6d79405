/**
 * What one sandboxed command may take, enforced with rlimits (bash's ulimit, set before bwrap
 * and so inherited by everything the command starts). rlimits rather than cgroups because
 * they need nothing delegated: this worker may sit on cgroup v1 or in a container without a
 * writable cgroup tree. Each is per process, so a command of many processes may take more in
 * total; the wall time is the call's own timeout (timeoutSeconds), enforced by shell-process.ts.
 */
export interface ResourceLimits {
  /**
   * Private writable memory of each process (RLIMIT_DATA, which since Linux 4.7 counts private
   * writable mappings, not the heap alone): allocations beyond it fail. Not RLIMIT_AS: address
   * space counts mere reservations, so a JVM could not reserve its default heap and Node could
   * not start (V8 reserves gigabytes it never touches, as does WebAssembly's memory).
   */
  readonly memoryBytes: number;
  /** Size of any one file the command writes (RLIMIT_FSIZE): the write fails, SIGXFSZ. */
  readonly fileSizeBytes: number;
  /**
   * Processes (RLIMIT_NPROC). The kernel counts them per user and does not count them for root,
   * so it holds only where the worker runs as a user other than root (as in the Docker image).
   */
  readonly processes: number;
  /** Open files of each process (RLIMIT_NOFILE). */
  readonly openFiles: number;
  /** A copy-on-write layer holding more bytes than this is discarded whole, never applied. */
  readonly layerBytes: number;
  /** A layer with more entries (files, directories, deletions) than this is discarded whole. */
  readonly layerEntries: number;
}

/** Generous for builds and tests, yet far from what took a shared machine down (2 GiB written, 600 processes). */
export const DEFAULT_RESOURCE_LIMITS: ResourceLimits = {
  memoryBytes: 4 * 1024 ** 3,
  fileSizeBytes: 1024 ** 3,
  processes: 512,
  openFiles: 4096,
  layerBytes: 1024 ** 3,
  layerEntries: 20_000,
};

/** The variables that set each limit for every command this worker runs (a whole number; K, M, G suffixes). */
export const RESOURCE_LIMIT_VARIABLES: Readonly<Record<keyof ResourceLimits, string>> = {
  memoryBytes: 'KEEL_COMMAND_MAX_MEMORY',
  fileSizeBytes: 'KEEL_COMMAND_MAX_FILE_SIZE',
  processes: 'KEEL_COMMAND_MAX_PROCESSES',
  openFiles: 'KEEL_COMMAND_MAX_OPEN_FILES',
  layerBytes: 'KEEL_LAYER_MAX_BYTES',
  layerEntries: 'KEEL_LAYER_MAX_ENTRIES',
};

const SUFFIXES: Readonly<Record<string, number>> = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 };

/** The defaults, each replaced by its variable when set; a bad value throws one clear line. */
export function resourceLimitsFromEnv(env: NodeJS.ProcessEnv): ResourceLimits {
  const limits = { ...DEFAULT_RESOURCE_LIMITS };
  for (const key of Object.keys(RESOURCE_LIMIT_VARIABLES) as (keyof ResourceLimits)[]) {
    const name = RESOURCE_LIMIT_VARIABLES[key];
    const raw = env[name]?.trim();
    if (raw === undefined || raw === '') continue;
    const match = /^(\d+)([KMG]?)$/i.exec(raw);
    const value = match ? Number(match[1]) * (SUFFIXES[(match[2] ?? '').toUpperCase()] ?? 1) : NaN;
    if (!Number.isSafeInteger(value) || value < 1)
      throw new Error(`${name} must be a positive whole number, optionally with K, M or G, got "${raw}"`);
    limits[key] = value;
  }
  return limits;
}

/**
 * The limits as bash's `ulimit` takes them (see confinement.ts): private writable memory in KiB, file size
 * in 1024-byte blocks, processes, open files. Set soft and hard, so the command cannot raise them.
 */
export function ulimitArguments(limits: ResourceLimits): string[] {
  return [
    String(Math.floor(limits.memoryBytes / 1024)),
    String(Math.floor(limits.fileSizeBytes / 1024)),
    String(limits.processes),
    String(limits.openFiles),
  ];
}

/** The file size limit as the kernel enforces it: whole KiB, as ulimit sets it. */
export function enforcedFileSizeBytes(limits: ResourceLimits): number {
  return Math.floor(limits.fileSizeBytes / 1024) * 1024;
}

/** Exit status of a shell whose command was killed by SIGXFSZ (128 + 25): it hit the file size limit. */
export const FILE_SIZE_EXCEEDED_EXIT = 153;
