import type { Installer } from '../ports/projects.js';

/**
 * Who installed a revision, as people read it: a CLI login as its person and the login's name
 * ("Ada Lovelace (hub login on laptop)"), an API key by its name and prefix, and who made it.
 */
export function InstalledBy({ installer }: { installer: Installer }) {
  if (installer.keyKind === 'cli')
    return (
      <span class="installer">
        {installer.accountName ?? 'a person'} <span class="muted">({installer.keyName})</span>
      </span>
    );
  return (
    <span class="installer">
      API key {installer.keyName} <code>{installer.keyPrefix}</code>
      {installer.accountName === null ? null : <span class="muted"> made by {installer.accountName}</span>}
    </span>
  );
}
