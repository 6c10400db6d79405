import { z } from 'zod';

export const DEFAULT_TEMPORAL_ADDRESS = '127.0.0.1:7233';
export const DEFAULT_NAMESPACE = 'default';
export const DEFAULT_TASK_QUEUE = 'keel';

export const connectionSettingsSchema = z.object({
  address: z.string().min(1),
  namespace: z.string().min(1),
  taskQueue: z.string().min(1),
});
export type ConnectionSettings = z.infer<typeof connectionSettingsSchema>;

/** Flags win over the environment, which wins over the local dev server defaults. */
export function connectionSettings(
  flags: Partial<ConnectionSettings> = {},
  env: NodeJS.ProcessEnv = process.env,
): ConnectionSettings {
  return connectionSettingsSchema.parse({
    address: flags.address ?? env.TEMPORAL_ADDRESS ?? DEFAULT_TEMPORAL_ADDRESS,
    namespace: flags.namespace ?? env.TEMPORAL_NAMESPACE ?? DEFAULT_NAMESPACE,
    taskQueue: flags.taskQueue ?? env.KEEL_TASK_QUEUE ?? DEFAULT_TASK_QUEUE,
  });
}
