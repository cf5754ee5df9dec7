// The data of the verification page of `hub login` and of the account's CLI logins: plain values, loaded by the routes.
import type { DeviceRequestView } from '../ports/cli-logins.js';
import type { SessionView } from '../store.js';

export interface DeviceCodePageProps {
  session: SessionView;
  /** The code to prefill (from `?user_code=`, as `XXXX-XXXX`), or ''. */
  code: string;
  message?: string | undefined;
}

export interface DeviceConfirmPageProps {
  session: SessionView;
  request: DeviceRequestView;
}
