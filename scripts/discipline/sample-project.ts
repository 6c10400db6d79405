/**
 * A small but real-looking service for the careful readers (reader-scenarios.ts): each module has
 * content of its own, not a template, and `finding` is what a reader would say after reading it.
 */
import type { SampleModule } from './sample-module';
import { ENDPOINT_AND_JOB_MODULES } from './sample-modules-endpoints-and-jobs';
import { FOUNDATION_MODULES } from './sample-modules-foundation';

export type { SampleModule };

export const SAMPLE_MODULES: SampleModule[] = [...FOUNDATION_MODULES, ...ENDPOINT_AND_JOB_MODULES];

export const sampleProjectFiles: Record<string, string> = {
  'README.md': '# orders service\nA small HTTP service: users, orders, and a job queue that sends mail.\n',
  'package.json': '{ "name": "orders-service", "private": true, "type": "module" }\n',
  ...Object.fromEntries(SAMPLE_MODULES.map((module) => [module.path, module.content])),
};
