import type { KeyObject } from 'node:crypto';
import type { ScenarioInput } from '../../src/scripted-model/scenario';

/**
 * The scripted goals of test/integration/inbox-rules-signing.test.ts (decisions remembered as
 * rules, goals that require signed decisions), and the PEM text of the keys it pastes.
 */

const shell = (command: string) => ({ toolCalls: [{ name: 'run_command', input: { command } }] });

export const inboxRulesSigningScenarios: ScenarioInput[] = [
  {
    name: 'allow',
    match: 'GOAL-REMEMBER-ALLOW',
    turns: [
      shell('npm test -- unit'), // approved with the rule npm test*
      shell('npm test -- integration'), // by that rule
      shell('npm run lint'), // not covered: waits; approved with the rule of exactly this call
      shell('npm run lint'), // by that rule
      shell('npm run lint -- --fix'), // not exactly it: waits
      { text: 'allow finished' },
    ],
  },
  {
    name: 'elsewhere',
    match: 'GOAL-REMEMBER-ELSEWHERE',
    turns: [shell('npm test -- unit'), { text: 'done' }],
  },
  {
    name: 'deny',
    match: 'GOAL-REMEMBER-DENY',
    turns: [
      shell('rm -rf build'), // denied with the rule rm -rf *
      shell('rm -rf dist'), // refused by it
      shell('touch kept.txt'), // not covered: waits
      { text: 'deny finished' },
    ],
  },
  {
    name: 'irreversible',
    match: 'GOAL-REMEMBER-IRREVERSIBLE',
    turns: [shell('touch one.txt'), shell('touch two.txt'), { text: 'irreversible finished' }],
  },
  {
    name: 'signed',
    match: 'GOAL-SIGNED-INBOX',
    turns: [
      shell('npm test -- signed one'), // alice pastes keys: wrong ones refused, hers decides
      shell('npm test -- signed two'), // carol's key is held by the inbox; she makes a rule
      shell('npm test -- signed three'), // by carol's signed rule
      { text: 'signed finished' },
    ],
  },
];

export const pem = (key: KeyObject) => key.export({ format: 'pem', type: 'pkcs8' }).toString();
/** The line of a PEM that differs from key to key (every Ed25519 PKCS#8 body starts alike). */
export const pemBody = (key: KeyObject) => pem(key).split('\n')[1] ?? '';
