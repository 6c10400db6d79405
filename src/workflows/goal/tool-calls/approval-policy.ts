import { ApprovalPolicy } from '../lifecycle/input';
import { Reversibility } from '../../tools/reversibility';

/**
 * Whether a call must wait for a human. Irreversible calls always wait; read-only calls never
 * do; mutating calls follow the goal's policy. The tool decides reversibility, not the model.
 */
export function requiresHumanApproval(reversibility: Reversibility, policy: ApprovalPolicy): boolean {
  switch (reversibility) {
    case Reversibility.Irreversible:
      return true;
    case Reversibility.Mutating:
      return policy === ApprovalPolicy.Ask;
    case Reversibility.ReadOnly:
      return false;
  }
}
