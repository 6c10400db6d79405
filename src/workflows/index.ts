// The workflow bundle's entry point: everything exported here is a workflow type.
export { goalWorkflow } from './goal/workflow';
export { workerToolsWorkflow } from './catalogue/worker-tools-workflow';
