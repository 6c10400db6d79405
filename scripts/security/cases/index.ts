/** The whole corpus of `npm run eval:security`, one file per category; ids are checked unique. */
import type { SecurityCase } from '../security-case';
import { catastrophicRegexCases } from './catastrophic-regex';
import { deceptiveLabelCases } from './deceptive-labels';
import { forbiddenWriteCases } from './forbidden-writes';
import { gitConfigCases } from './git-configs';
import { gitWithoutDotGitCases } from './git-without-dot-git';
import { nestingAndStateCases } from './nesting-and-state';
import { optionTrickCases } from './option-tricks';
import { privilegeCases } from './privileges';
import { outsideReadCases } from './outside-reads';
import { raceCases } from './races';
import { shellParsingCases } from './shell-parsing';

export const SECURITY_CASES: readonly SecurityCase[] = uniquelyNamed([
  ...shellParsingCases,
  ...optionTrickCases,
  ...gitConfigCases,
  ...outsideReadCases,
  ...raceCases,
  ...forbiddenWriteCases,
  ...catastrophicRegexCases,
  ...deceptiveLabelCases,
  ...privilegeCases,
  ...gitWithoutDotGitCases,
  ...nestingAndStateCases,
]);

function uniquelyNamed(cases: readonly SecurityCase[]): readonly SecurityCase[] {
  const seen = new Set<string>();
  for (const securityCase of cases) {
    if (seen.has(securityCase.id)) throw new Error(`two security cases are named ${securityCase.id}`);
    if (!securityCase.id.startsWith(`${securityCase.category}/`))
      throw new Error(
        `security case ${securityCase.id} is not named after its category ${securityCase.category}`,
      );
    seen.add(securityCase.id);
  }
  return cases;
}
