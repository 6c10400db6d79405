/**
 * The blast radius of one tool call, decided by the tool from the call's arguments (principle 4
 * of the harness). The model can read it but cannot change it: approvals are decided from it.
 */
export const Reversibility = {
  ReadOnly: 'read-only',
  Mutating: 'mutating',
  Irreversible: 'irreversible',
} as const;
export type Reversibility = (typeof Reversibility)[keyof typeof Reversibility];
