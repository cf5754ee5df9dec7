import type { Installer } from '../ports/projects.js';

/** Who installed a revision: the API key (name and prefix), and the person who made the key in the dashboard. */
export function InstalledBy({ installer }: { installer: Installer }) {
  return (
    <span class="installer">
      key {installer.keyName} <code>{installer.keyPrefix}</code>
      {installer.accountName === null ? null : <span class="muted"> made by {installer.accountName}</span>}
    </span>
  );
}
