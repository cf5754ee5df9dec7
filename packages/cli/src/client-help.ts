// Help text of the commands that call the hub API: how they pick the hub and the credential.
import { DEFAULT_ORIGIN } from './origin.js';

export const ORIGIN_ARGUMENT_HELP = `  origin          The hub, such as https://hub.example.com: scheme, host and port only
                  (default: $HUB_URL, else the active stored login, else ${DEFAULT_ORIGIN})`;

export const API_KEY_OPTION_HELP = `  --api-key KEY   The credential: an organization API key (hub_pk_...) or a CLI credential
                  (hub_cli_...). Prefer "hub login" or HUB_API_KEY: a command line is visible
                  to other users and stays in shell history`;

export const CREDENTIALS_HELP = `Credentials: --api-key, else HUB_API_KEY, else the login stored for exactly that hub by
"hub login" (in credentials.json in the config dir: $HUB_CONFIG_DIR, else $XDG_CONFIG_HOME/hub,
else ~/.config/hub; mode 0600). No credential is ever printed.
`;

export const CLIENT_ENV_HELP = `Environment:
  HUB_URL          The hub, when no origin argument is given
  HUB_API_KEY      The credential, when there is no --api-key option
  HUB_CONFIG_DIR   The config dir, which holds credentials.json
`;
