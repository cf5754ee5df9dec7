import type { InvitationRow, MemberRow } from '../ports/members.js';
import { Pager } from './pager.js';
import { Time } from './times.js';
import { Layout, Notice } from './layout.js';
import type { LeavePageProps, MembersPageProps, RemoveMemberPageProps } from './members-props.js';
import { ListHead } from './list-head.js';

/** The organization's members; owners also invite, remove and change roles. */
/** Why the last owner is not offered what would leave the organization without one. */
export const SOLE_OWNER =
  'You are the only owner: make another member an owner before you step down, leave or are removed.';

export function MembersPage({ session, members, invitations, page, next, owners, notice }: MembersPageProps) {
  const current = session.current;
  if (!current) {
    return (
      <Layout title="Members" session={session} section="/members">
        <h1>Members</h1>
        <p class="empty">
          You belong to no organization yet: ask an owner for an invitation, or create one on your account's page.
        </p>
      </Layout>
    );
  }
  const owner = current.role === 'owner';
  const soleOwner = owner && owners <= 1;
  return (
    <Layout title="Members" session={session} section="/members">
      <h1>Members</h1>
      <p class="muted">
        People of <strong>{current.name}</strong>. Owners manage API keys and members; members see them.
      </p>
      <Notice message={notice?.text} kind={notice?.kind} />
      {members.length === 0 ? (
        <p class="empty">
          {page > 1 ? 'No members on this page: go back to the first page.' : 'No members yet: invite someone below.'}
        </p>
      ) : (
        <MemberTable members={members} owner={owner} self={session.account.id} lastOwner={owners <= 1} />
      )}
      <Pager path="/members" pages={{ page, more: next }} label="Pages of members" />
      <Invitations invitations={invitations} owner={owner} />
      {owner ? <InviteForm /> : <p class="muted">Only owners invite, remove and change the roles of members.</p>}
      <h2>Leave</h2>
      {soleOwner ? (
        <p class="muted">{SOLE_OWNER}</p>
      ) : (
        <p>
          <a href="/members/leave">Leave {current.name}</a>
        </p>
      )}
    </Layout>
  );
}

function MemberTable({
  members,
  owner,
  self,
  lastOwner,
}: {
  members: MemberRow[];
  owner: boolean;
  self: string;
  lastOwner: boolean;
}) {
  return (
    <table class="list members">
      <ListHead columns={['Name', 'E-mail', 'Role', 'Since']} actions={owner} />
      <tbody>
        {members.map((member) => (
          <tr key={member.accountId}>
            <td data-label="Name">
              <span>
                {member.name}
                {member.accountId === self ? <span class="muted"> (you)</span> : null}
              </span>
            </td>
            <td data-label="E-mail">{member.email}</td>
            <td data-label="Role">{member.role}</td>
            <td data-label="Since">
              <Time at={member.since} />
            </td>
            {owner ? (
              <td data-label="">
                {lastOwner && member.role === 'owner' ? (
                  <span class="muted">the only owner</span>
                ) : (
                  <MemberActions member={member} />
                )}
              </td>
            ) : null}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function MemberActions({ member }: { member: MemberRow }) {
  const id = encodeURIComponent(member.accountId);
  const role = member.role === 'owner' ? 'member' : 'owner';
  return (
    <span class="row-actions">
      <form class="inline" method="post" action={`/members/${id}/role`}>
        <input type="hidden" name="role" value={role} />
        <button type="submit" class="secondary">
          Make {role}
          <span class="visually-hidden"> {member.name}</span>
        </button>
      </form>
      <a class="button danger" href={`/members/${id}/remove`}>
        Remove<span class="visually-hidden"> {member.name}</span>
      </a>
    </span>
  );
}

/** The live invitations: who made each, its role, when; owners revoke them. */
function Invitations({ invitations, owner }: { invitations: InvitationRow[]; owner: boolean }) {
  return (
    <section aria-labelledby="invitations">
      <h2 id="invitations">Open invitations</h2>
      {invitations.length === 0 ? (
        <p class="empty">No open invitations: none waits to be accepted.</p>
      ) : (
        <table class="list invitations">
          <ListHead columns={['Role', 'Invited by', 'Created', 'Expires']} actions={owner} />
          <tbody>
            {invitations.map((invitation) => (
              <tr key={invitation.id}>
                <td data-label="Role">{invitation.role}</td>
                <td data-label="Invited by">{invitation.invitedBy.name}</td>
                <td data-label="Created">
                  <Time at={invitation.createdAt} />
                </td>
                <td data-label="Expires">
                  <Time at={invitation.expiresAt} />
                </td>
                {owner ? (
                  <td data-label="">
                    <form
                      class="inline"
                      method="post"
                      action={`/members/invitations/${encodeURIComponent(invitation.id)}/revoke`}
                    >
                      <button type="submit" class="danger">
                        Revoke
                        <span class="visually-hidden">
                          {' '}
                          the {invitation.role} invitation by {invitation.invitedBy.name}
                        </span>
                      </button>
                    </form>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p class="muted">
        An invitation works until it is accepted, revoked or expires, and ends when whoever made it stops being an
        owner.
      </p>
    </section>
  );
}

function InviteForm() {
  return (
    <section aria-labelledby="invite">
      <h2 id="invite">Invite</h2>
      <p>The hub makes a link that works once, for 7 days. It sends no mail: pass the link on yourself.</p>
      <form class="stack" method="post" action="/members/invitations">
        <fieldset class="choice">
          <legend>Role</legend>
          <label class="check">
            <input type="radio" name="role" value="member" checked /> Member: sees the organization
          </label>
          <label class="check">
            <input type="radio" name="role" value="owner" /> Owner: also manages API keys and members
          </label>
        </fieldset>
        <button type="submit">Create an invitation link</button>
      </form>
    </section>
  );
}

/** The confirmation before a member is removed: a page, so it works without script. */
export function RemoveMemberPage({ session, member, daemons }: RemoveMemberPageProps) {
  return (
    <Layout title="Remove member" session={session} section="/members">
      <h1>Remove this member?</h1>
      <p>
        <strong>{member.name}</strong> ({member.email}) loses access to {session.current?.name} at once. An owner can
        invite them again.
      </p>
      <DaemonsRetired who={`Removing ${member.name}`} whose="they" daemons={daemons} />
      <form class="actions" method="post" action={`/members/${encodeURIComponent(member.accountId)}/remove`}>
        <button type="submit" class="danger">
          Remove member
        </button>
        <a href="/members">Cancel</a>
      </form>
    </Layout>
  );
}

/** The confirmation before leaving the current organization. */
export function LeavePage({ session, daemons, soleOwner }: LeavePageProps) {
  if (soleOwner)
    return (
      <Layout title="Leave organization" session={session} section="/members">
        <h1>Leave {session.current?.name}?</h1>
        <p class="notice warning" role="status">
          {SOLE_OWNER}
        </p>
        <p>
          <a href="/members">Back to members</a>
        </p>
      </Layout>
    );
  return (
    <Layout title="Leave organization" session={session} section="/members">
      <h1>Leave {session.current?.name}?</h1>
      <p>You lose access to its keys and projects at once. To come back, you need a new invitation from an owner.</p>
      <DaemonsRetired who="Leaving" whose="you" daemons={daemons} />
      <form class="actions" method="post" action="/members/leave">
        <button type="submit" class="danger">
          Leave the organization
        </button>
        <a href="/members">Cancel</a>
      </form>
    </Layout>
  );
}

/** The daemons a removal or leaving retires with the membership: those the person enrolled. */
function DaemonsRetired({ who, whose, daemons }: { who: string; whose: string; daemons: string[] | undefined }) {
  if (!daemons || daemons.length === 0) return null;
  return (
    <p class="notice warning daemons-retired">
      {who} also retires the {daemons.length === 1 ? 'daemon' : 'daemons'} {whose} enrolled:{' '}
      {daemons.map((name, index) => (
        <span key={name}>
          {index > 0 ? ', ' : null}
          <code>{name}</code>
        </span>
      ))}
      . Signed requests from {daemons.length === 1 ? 'it' : 'them'} get 401 at once.
    </p>
  );
}
