/** The workspace host's part of the Web UI's details (details.ts): where the goal runs, or what a human can do while its host is away. */
import { hostLossText } from '../../hosts/host-loss';
import type { HostView } from '../messages';
import { inlineCode } from './markdown-code';

export function hostSection(host: HostView | undefined, pendingApprovals: number): string | undefined {
  if (host === undefined) return undefined;
  const actions = (host.actions ?? []).map((action) => `- ${action}`);
  if (host.unavailableSince !== undefined)
    return [
      `#### Workspace host ${inlineCode(host.id)} unavailable since ${host.unavailableSince}`,
      ...actions,
    ].join('\n');
  // A goal parked on an approval makes no calls: without this it would look healthy.
  if (host.missingSince !== undefined)
    return [
      `#### Workspace host ${inlineCode(host.id)} missing since ${host.missingSince}`,
      hostLossText({ host: host.id, since: host.missingSince, pendingApprovals }),
      ...actions,
    ].join('\n');
  return `**Host:** ${inlineCode(host.id)} (${host.via})`;
}
